/* Calls R's own revsort (R_ext/Utils.h) for make_golden.R: the heapsort order of tied values. */
#include <R_ext/Utils.h>

void wbs_probe_revsort(double *a, int *ib, int *n)
{
    revsort(a, ib, *n);
}
