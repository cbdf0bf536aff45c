"""Importing this package registers every detector: one explicit import per detector module
(no discovery by package walk, which is import-order dependent and breaks under PyInstaller)."""
from . import kbkssd  # noqa: F401
from . import cpssd  # noqa: F401
from . import partition  # noqa: F401
from . import binseg  # noqa: F401
from . import fisher  # noqa: F401
from . import nrss  # noqa: F401
from . import autoparm  # noqa: F401
from . import zero  # noqa: F401
from . import rfpop  # noqa: F401
from . import barrett  # noqa: F401
from . import amoc  # noqa: F401
from . import segneigh  # noqa: F401
from . import bocpd  # noqa: F401
from . import cpnp  # noqa: F401
from . import wbs  # noqa: F401
from . import kcpa  # noqa: F401
from . import ecp  # noqa: F401
from . import auto  # noqa: F401  (the default change-point method: a vote of five members)
from . import _multivariate  # noqa: F401  (joint runners of op, pelt, binseg for multivariate series)
