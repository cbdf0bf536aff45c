# Golden change points from R changepoint (rkillick/changepoint e3959de, = v2.2.2, the commit
# softdevteam/warmup_stats' build.sh installs), called the way warmup_stats'
# bin/mark_changepoints_in_json calls it:
#   cpt.meanvar(x, method="PELT", penalty="Manual", pen.value=15*numpy.log(length(x)))
# Input (written by make_cpt_golden.py): a binary file of little-endian int32 count, then per
# series an int32 length, the float64 penalty and the float64 values. Output: one line per series,
# "cpts;means;variances" with %.17g numbers separated by commas.
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(changepoint))
con <- file(args[1], "rb")
k <- readBin(con, "integer", n = 1, size = 4, endian = "little")
out <- character(k)
for (i in seq_len(k)) {
  n <- readBin(con, "integer", n = 1, size = 4, endian = "little")
  pen <- readBin(con, "double", n = 1, size = 8, endian = "little")
  x <- readBin(con, "double", n = n, size = 8, endian = "little")
  r <- cpt.meanvar(x, method = "PELT", penalty = "Manual", pen.value = pen)
  f <- function(v) paste(sprintf("%.17g", v), collapse = ",")
  out[i] <- paste(f(r@cpts), f(param.est(r)$mean), f(param.est(r)$variance), sep = ";")
}
close(con)
writeLines(c(paste0("changepoint ", as.character(packageVersion("changepoint")), "; ",
                    R.version.string), out), args[2])
