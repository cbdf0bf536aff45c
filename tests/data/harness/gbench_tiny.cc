// A tiny Google Benchmark program for the segview fixtures (make_gbench.sh builds and runs it).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>
#include <vector>

static void BM_Sum(benchmark::State& state) {
  std::vector<int> v(100);
  std::iota(v.begin(), v.end(), 0);
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0));
  }
}
BENCHMARK(BM_Sum);

static void BM_Sort(benchmark::State& state) {
  std::vector<int> v(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(v.size() - i);
    state.ResumeTiming();
    std::sort(v.begin(), v.end());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Sort)->Arg(8)->Arg(64);

BENCHMARK_MAIN();
