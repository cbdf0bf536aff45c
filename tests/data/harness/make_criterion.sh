#!/bin/sh
# Makes the Criterion.rs fixtures with the real criterion 0.3.6 as packaged by Debian 12
# (apt-get install librust-criterion-dev), built offline from Debian's crate registry
# /usr/share/cargo/registry. The first build takes about 10 minutes on 2 cores.
# Usage: sh tests/data/harness/make_criterion.sh   (from the repository root)
#        CRITERION_WORK=/some/dir reuses (and keeps) a build folder.
set -eu
out=$(pwd)/tests/data/harness/criterion
work=${CRITERION_WORK:-$(mktemp -d)}
mkdir -p "$work/benches" "$work/src" "$work/.cargo"
cat > "$work/.cargo/config.toml" <<'TOML'
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
TOML
cat > "$work/Cargo.toml" <<'TOML'
[package]
name = "tiny"
version = "0.1.0"
edition = "2018"

[dev-dependencies]
criterion = { version = "0.3", default-features = false }

[[bench]]
name = "tiny"
harness = false
TOML
: > "$work/src/lib.rs"
cat > "$work/benches/tiny.rs" <<'RS'
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use std::time::Duration;

fn fib(n: u64) -> u64 {
    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
}

fn benches(c: &mut Criterion) {
    c.bench_function("fib 10", |b| b.iter(|| fib(black_box(10))));
    let mut group = c.benchmark_group("sum");
    for n in [10u64, 100].iter() {
        group.bench_with_input(BenchmarkId::from_parameter(n), n, |b, &n| {
            b.iter(|| (0..black_box(n)).sum::<u64>())
        });
    }
    group.finish();
}

criterion_group! {
    name = tiny;
    config = Criterion::default().sample_size(10)
        .warm_up_time(Duration::from_millis(50))
        .measurement_time(Duration::from_millis(200));
    targets = benches
}
criterion_main!(tiny);
RS
(cd "$work" && rm -rf target/criterion && cargo bench --bench tiny)
# Keep the data files of target/criterion (new/ and the base/ copy), not the HTML reports.
rm -rf "$out/target" && mkdir -p "$out/target"
(cd "$work/target" && find criterion -type f \( -name '*.json' -o -name '*.csv' \) \
    ! -path '*/report/*' | while read -r f; do
        mkdir -p "$out/target/$(dirname "$f")" && cp "$f" "$out/target/$f"; done)
# A raw.csv on its own (criterion's CSV report without sample.json beside it).
mkdir -p "$out/../criterion_csv"
cp "$work/target/criterion/sum/10/new/raw.csv" "$out/../criterion_csv/raw.csv"
rustc --version && cargo --version
dpkg-query -W librust-criterion-dev
