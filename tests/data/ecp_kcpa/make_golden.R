# R ecp 3.1.1 (the version TCPDBench pins in Rpackages.txt) as TCPDBench's cpdbench_ecp.R calls it.
# Usage: Rscript make_golden.R DATAFILE ALGO SEEDS OUTFILE
#   DATAFILE: whitespace-separated values, one row per sample (written by make_golden.py)
#   ALGO: kcpa (kcpa(X, L = n, C = 1)) or ecp (e.divisive(X, 0.05, R = 199, min.size = 30, alpha = 1))
#   SEEDS: comma-separated set.seed() values, one run each
suppressMessages(library(ecp))
args <- commandArgs(trailingOnly=TRUE)
algo <- args[2]; seeds <- as.integer(strsplit(args[3], ",")[[1]])
X <- as.matrix(read.table(args[1]))
mat <- scale(X)  # TCPDBench's load.dataset
out <- file(args[4], "w")
for (s in seeds) {
  set.seed(s)
  t0 <- proc.time()[["elapsed"]]
  if (algo == "kcpa") {
    r <- kcpa(mat, nrow(mat), 1)
    cat(s, "cps", r, "\n", file=out)
  } else {
    r <- e.divisive(mat, sig.lvl=0.05, R=199, min.size=30, alpha=1)
    cat(s, "est", r$estimates, "\n", file=out)
    cat(s, "order", r$order.found, "\n", file=out)
    cat(s, "pvals", sprintf("%.17g", r$p.values), "\n", file=out)
  }
  cat(s, "time", proc.time()[["elapsed"]] - t0, "\n", file=out)
}
close(out)
