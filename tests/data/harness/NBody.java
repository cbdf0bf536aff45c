// In-process iterations of a small n-body simulation, timed with System.nanoTime.
// Usage: java NBody ITERATIONS STEPS  -> one iteration time in seconds per line (stdout).
// Used by make_warmup_stats.sh (the JVM half of the warm-up fixture, issue 26).
public final class NBody {
    static final double PI = 3.141592653589793, SOLAR_MASS = 4 * PI * PI, DAYS = 365.24;

    static double[][] bodies() {
        return new double[][] {
            {0, 0, 0, 0, 0, 0, SOLAR_MASS},
            {4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
             1.66007664274403694e-03 * DAYS, 7.69901118419740425e-03 * DAYS,
             -6.90460016972063023e-05 * DAYS, 9.54791938424326609e-04 * SOLAR_MASS},
            {8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
             -2.76742510726862411e-03 * DAYS, 4.99852801234917238e-03 * DAYS,
             2.30417297573763929e-05 * DAYS, 2.85885980666130812e-04 * SOLAR_MASS},
            {1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
             2.96460137564761618e-03 * DAYS, 2.37847173959480950e-03 * DAYS,
             -2.96589568540237556e-05 * DAYS, 4.36624404335156298e-05 * SOLAR_MASS},
            {1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
             2.68067772490389322e-03 * DAYS, 1.62824170038242295e-03 * DAYS,
             -9.51592254519715870e-05 * DAYS, 5.15138902046611451e-05 * SOLAR_MASS}};
    }

    static void advance(double[][] b, double dt) {
        for (int i = 0; i < b.length; i++) {
            for (int j = i + 1; j < b.length; j++) {
                double dx = b[i][0] - b[j][0], dy = b[i][1] - b[j][1], dz = b[i][2] - b[j][2];
                double d2 = dx * dx + dy * dy + dz * dz;
                double mag = dt / (d2 * Math.sqrt(d2));
                b[i][3] -= dx * b[j][6] * mag; b[i][4] -= dy * b[j][6] * mag; b[i][5] -= dz * b[j][6] * mag;
                b[j][3] += dx * b[i][6] * mag; b[j][4] += dy * b[i][6] * mag; b[j][5] += dz * b[i][6] * mag;
            }
        }
        for (double[] p : b) { p[0] += dt * p[3]; p[1] += dt * p[4]; p[2] += dt * p[5]; }
    }

    public static void main(String[] args) {
        int iterations = Integer.parseInt(args[0]), steps = Integer.parseInt(args[1]);
        double[] times = new double[iterations];
        double sink = 0;
        for (int it = 0; it < iterations; it++) {
            long t0 = System.nanoTime();
            double[][] b = bodies();
            for (int s = 0; s < steps; s++) advance(b, 0.01);
            sink += b[1][0];
            times[it] = (System.nanoTime() - t0) / 1e9;
        }
        StringBuilder out = new StringBuilder();
        for (double t : times) out.append(String.format(java.util.Locale.ROOT, "%.9f%n", t));
        System.out.print(out);
        System.err.println("checksum " + sink);
    }
}
