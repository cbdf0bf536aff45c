"""In-process iterations of a small n-body simulation, timed with time.perf_counter.

Usage: pypy3 nbody.py ITERATIONS STEPS -> one iteration time in seconds per line (stdout).
Used by make_warmup_stats.sh (the PyPy half of the warm-up fixture, issue 26).
"""
import sys
import time

PI = 3.141592653589793
SOLAR_MASS = 4 * PI * PI
DAYS = 365.24


def bodies():
    return [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, SOLAR_MASS],
            [4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
             1.66007664274403694e-03 * DAYS, 7.69901118419740425e-03 * DAYS,
             -6.90460016972063023e-05 * DAYS, 9.54791938424326609e-04 * SOLAR_MASS],
            [8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
             -2.76742510726862411e-03 * DAYS, 4.99852801234917238e-03 * DAYS,
             2.30417297573763929e-05 * DAYS, 2.85885980666130812e-04 * SOLAR_MASS],
            [1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
             2.96460137564761618e-03 * DAYS, 2.37847173959480950e-03 * DAYS,
             -2.96589568540237556e-05 * DAYS, 4.36624404335156298e-05 * SOLAR_MASS],
            [1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
             2.68067772490389322e-03 * DAYS, 1.62824170038242295e-03 * DAYS,
             -9.51592254519715870e-05 * DAYS, 5.15138902046611451e-05 * SOLAR_MASS]]


def advance(b, dt):
    n = len(b)
    for i in range(n):
        bi = b[i]
        for j in range(i + 1, n):
            bj = b[j]
            dx, dy, dz = bi[0] - bj[0], bi[1] - bj[1], bi[2] - bj[2]
            d2 = dx * dx + dy * dy + dz * dz
            mag = dt / (d2 * d2 ** 0.5)
            bi[3] -= dx * bj[6] * mag; bi[4] -= dy * bj[6] * mag; bi[5] -= dz * bj[6] * mag
            bj[3] += dx * bi[6] * mag; bj[4] += dy * bi[6] * mag; bj[5] += dz * bi[6] * mag
    for p in b:
        p[0] += dt * p[3]; p[1] += dt * p[4]; p[2] += dt * p[5]


def main():
    iterations, steps = int(sys.argv[1]), int(sys.argv[2])
    times = []
    sink = 0.0
    for _ in range(iterations):
        t0 = time.perf_counter()
        b = bodies()
        for _ in range(steps):
            advance(b, 0.01)
        sink += b[1][0]
        times.append(time.perf_counter() - t0)
    sys.stdout.write("".join("%.9f\n" % t for t in times))
    sys.stderr.write("checksum %r\n" % sink)


if __name__ == "__main__":
    main()
