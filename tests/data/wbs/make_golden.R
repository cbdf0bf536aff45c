# Golden outputs of R wbs 1.4.1 for tests/core/test_wbs.py (run by make_golden.py, which writes
# the input file and turns this script's output into wbs_r_golden.json; R is needed only then).
# Input lines: "name<TAB>seeds<TAB>values", seeds comma separated, values as hexadecimal doubles
# (exact in R). Each series is standardised with scale() as TCPDBench's load.dataset does, then run
# as TCPDBench's default wbs experiment: set.seed(seed); wbs(M=5000, rand.intervals=TRUE,
# integrated=TRUE); changepoints(Kmax=50). Output lines are "key<TAB>name<TAB>seed<TAB>numbers".
args <- commandArgs(trailingOnly = TRUE)
lib <- args[1]; infile <- args[2]; full_res <- strsplit(args[3], ",")[[1]]
library(wbs, lib.loc = lib)
hex <- function(v) paste(sprintf("%a", v), collapse = ",")
ints <- function(v) paste(as.integer(v), collapse = ",")
emit <- function(key, name, seed, txt) cat(key, "\t", name, "\t", seed, "\t", txt, "\n", sep = "")

# R's generator: runif draws at given positions after set.seed
for (seed in c(0L, 1L, 42L, -5L, 2147483647L)) {
    set.seed(seed); u <- runif(10000)
    emit("runif", "-", seed, hex(u[c(1, 2, 3, 623, 624, 625, 626, 1247, 1248, 1249, 10000)]))
    set.seed(seed); iv <- random.intervals(100, 5000)
    emit("intervals", "-", seed, ints(c(iv[1:5, 1], iv[1:5, 2], sum(iv[, 1]), sum(iv[, 2]))))
}

# R's revsort (heapsort into decreasing order, as wbs ranks its intervals) on tied values
probe <- file.path(tempdir(), "revsort_probe.c")
invisible(file.copy(file.path(dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE))),
                    "revsort_probe.c"), probe))
system(paste("R CMD SHLIB -o", file.path(tempdir(), "probe.so"), probe), ignore.stdout = TRUE)
dyn.load(file.path(tempdir(), "probe.so"))
set.seed(7)
v <- round(rnorm(300), 1)
out <- .C("wbs_probe_revsort", a = as.double(v), ib = as.integer(1:300), n = 300L)
emit("revsort_in", "-", 7, hex(v))
emit("revsort_ib", "-", 7, ints(out$ib))

for (line in readLines(infile)) {
    f <- strsplit(line, "\t")[[1]]
    name <- f[1]; seeds <- as.integer(strsplit(f[2], ",")[[1]])
    x <- as.vector(scale(as.numeric(strsplit(f[3], ",")[[1]])))
    for (seed in seeds) {
        set.seed(seed)
        w <- wbs(x, M = 5000, rand.intervals = TRUE, integrated = TRUE)
        cp <- changepoints(w, Kmax = 50)
        cand <- wbs:::changepoints.sbs(w, Kmax = 50)$cpt.th[[1]]
        emit("cand", name, seed, ints(cand))
        for (p in c("ssic.penalty", "bic.penalty", "mbic.penalty")) {
            locs <- sort(cp$cpt.ic[[p]])
            emit(p, name, seed, ints(locs))
            emit(paste0("ic.", p), name, seed, hex(cp$ic.curve[[p]]))
        }
        if (name %in% full_res && seed == seeds[1])
            for (j in 1:6) emit(paste0("res", j), name, seed, hex(w$res[, j]))
    }
}
