/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every bench binary shares: the EAL set-up (hugepages when the machine
 * has them) and the Google Benchmark main() (exit status non-zero when a
 * benchmark reported an error).
 *
 * Hugepages. By default a bench uses 2 MB hugepages when hugetlbfs is mounted
 * and enough 2 MB pages are free for its memory (-m), and runs with
 * --no-huge otherwise. EWYK_BENCH_HUGE=1 forces hugepages (the bench fails
 * when there are none), EWYK_BENCH_HUGE=0 forces --no-huge; EWYK_HUGE is
 * read when EWYK_BENCH_HUGE is unset. What was used, and why, is printed on
 * stderr and recorded in the benchmark context ("hugepages": "yes"/"no").
 *
 * Usage:
 *
 *	int main(int argc, char **argv)
 *	{
 *		if (ewyk_bench::eal_init(argv[0], "twheel", {"-l", "0-1"}, 256) < 0)
 *			return 1;
 *		... register benchmarks, set up ...
 *		return ewyk_bench::run(argc, argv);
 *	}
 */

#ifndef EWYK_BENCH_COMMON_H
#define EWYK_BENCH_COMMON_H

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <rte_eal.h>
#include <rte_errno.h>

namespace ewyk_bench
{

/* Free 2 MB hugepages, or -1 when the kernel has none configured. */
inline long
free_2m_pages()
{
	std::ifstream f("/sys/kernel/mm/hugepages/hugepages-2048kB/"
			"free_hugepages");
	long n = -1;

	if (!(f >> n))
		return -1;
	return n;
}

/*
 * Whether a hugetlbfs of 2 MB pages (or of the default size) is mounted
 * where this process may create files.
 */
inline bool
hugetlbfs_mounted()
{
	std::ifstream f("/proc/mounts");
	std::string dev, dir, type, opts;

	while (f >> dev >> dir >> type >> opts) {
		std::string rest;

		std::getline(f, rest);
		if (type != "hugetlbfs")
			continue;
		if ((opts.find("pagesize=") == std::string::npos ||
			    opts.find("pagesize=2M") != std::string::npos) &&
			access(dir.c_str(), W_OK) == 0)
			return true;
	}
	return false;
}

/* -1: auto, 0: forced off, 1: forced on. */
inline int
huge_switch()
{
	const char *v = getenv("EWYK_BENCH_HUGE");

	if (v == nullptr || *v == '\0')
		v = getenv("EWYK_HUGE");
	if (v == nullptr || *v == '\0' || strcmp(v, "auto") == 0)
		return -1;
	return strcmp(v, "0") == 0 || strcmp(v, "no") == 0 ? 0 : 1;
}

/*
 * Decide on hugepages for mem_mb MB of EAL memory. Returns true to use
 * them; *why says what decided.
 */
inline bool
want_huge(unsigned int mem_mb, std::string *why)
{
	int sw = huge_switch();
	long need = (mem_mb + 1) / 2 + 8; /* pages, with a small margin */
	long have = free_2m_pages();
	bool mounted = hugetlbfs_mounted();

	if (sw == 0) {
		*why = "forced off by EWYK_BENCH_HUGE/EWYK_HUGE=0";
		return false;
	}
	if (sw == 1) {
		*why = "forced on by EWYK_BENCH_HUGE/EWYK_HUGE";
		return true;
	}
	if (!mounted) {
		*why = "no writable hugetlbfs of 2 MB pages mounted";
		return false;
	}
	if (have < need) {
		*why = "only " + std::to_string(have < 0 ? 0 : have) +
			" free 2 MB pages, " + std::to_string(need) + " needed";
		return false;
	}
	*why = std::to_string(have) + " free 2 MB pages, hugetlbfs mounted";
	return true;
}

/*
 * Initialise the EAL for bench_<name>: the given core options (e.g.
 * {"-l", "0-1"} or {"--lcores=0@0,1@1"}), mem_mb MB of memory, no PCI, no
 * telemetry, quiet logs, a file prefix of its own, and hugepages as
 * described at the top of this file.
 *
 * @return 0, or -1 (printed on stderr).
 */
inline int
eal_init(const char *argv0, const char *name,
	const std::vector<std::string> &cores, unsigned int mem_mb)
{
	std::string why;
	bool huge = want_huge(mem_mb, &why);
	std::vector<std::string> a = { argv0 };
	std::vector<char *> argv;

	a.insert(a.end(), cores.begin(), cores.end());
	if (huge) {
		a.push_back("--in-memory");
	} else {
		a.push_back("--no-huge");
		a.push_back("--no-shconf");
		a.push_back("--file-prefix=ewyk-bench-" + std::string(name) +
			"-" + std::to_string(getpid()));
	}
	a.push_back("-m");
	a.push_back(std::to_string(mem_mb));
	a.push_back("--no-pci");
	a.push_back("--no-telemetry");
	a.push_back("--log-level=lib.eal:error");
	for (auto &s : a)
		argv.push_back(&s[0]);
	argv.push_back(nullptr);
	fprintf(stderr, "bench_%s: EAL %s hugepages (%s), -m %u\n", name,
		huge ? "with" : "without", why.c_str(), mem_mb);
	if (rte_eal_init(static_cast<int>(a.size()), argv.data()) < 0) {
		fprintf(stderr, "bench_%s: rte_eal_init: %s%s\n", name,
			rte_strerror(rte_errno),
			huge ? " (set EWYK_BENCH_HUGE=0 to run without hugepages)" :
			       "");
		return -1;
	}
	benchmark::AddCustomContext("hugepages", huge ? "yes" : "no");
	benchmark::AddCustomContext("hugepages_why", why);
	benchmark::AddCustomContext("eal_mem_mb", std::to_string(mem_mb));
	return 0;
}

/*
 * Display reporter that forwards to the reporter of --benchmark_format and
 * counts the runs that reported an error (SkipWithError).
 */
class ErrorCounter : public benchmark::BenchmarkReporter
{
      public:
	explicit ErrorCounter(benchmark::BenchmarkReporter *inner)
	    : inner_(inner)
	{
	}

	bool ReportContext(const Context &ctx) override
	{
		return inner_->ReportContext(ctx);
	}

	void ReportRuns(const std::vector<Run> &runs) override
	{
		for (const Run &r : runs) {
			if (r.error_occurred) {
				errors_++;
				fprintf(stderr, "ERROR in %s: %s\n",
					r.benchmark_name().c_str(),
					r.error_message.c_str());
			}
		}
		inner_->ReportRuns(runs);
	}

	void Finalize() override
	{
		inner_->Finalize();
	}

	unsigned int errors() const
	{
		return errors_;
	}

      private:
	std::unique_ptr<benchmark::BenchmarkReporter> inner_;
	unsigned int errors_ = 0;
};

/* The reporter --benchmark_format asks for (console by default). */
inline benchmark::BenchmarkReporter *
format_reporter(int argc, char **argv)
{
	std::string fmt = "console";
	bool tabular = false;

	for (int i = 1; i < argc; i++) {
		const char *f = "--benchmark_format=";

		if (strncmp(argv[i], f, strlen(f)) == 0)
			fmt = argv[i] + strlen(f);
		if (strcmp(argv[i], "--benchmark_counters_tabular=true") == 0 ||
			strcmp(argv[i], "--benchmark_counters_tabular") == 0)
			tabular = true;
	}
	if (fmt == "json")
		return new benchmark::JSONReporter();
	if (fmt == "csv") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		return new benchmark::CSVReporter();
#pragma GCC diagnostic pop
	}
	return new benchmark::ConsoleReporter(
		static_cast<benchmark::ConsoleReporter::OutputOptions>(
			(isatty(STDOUT_FILENO) ?
					benchmark::ConsoleReporter::OO_Color :
					0) |
			(tabular ? benchmark::ConsoleReporter::OO_Tabular :
				   0)));
}

/*
 * The benchmark main(): parse Google Benchmark's flags (anything else is
 * an error), run, call cleanup (if not NULL; it frees what the benchmarks
 * kept, while the EAL is still up), clean up the EAL.
 *
 * @return 0, or 1 when a flag was not understood or a benchmark reported
 *   an error (a failed sanity check).
 */
inline int
run(int argc, char **argv, void (*cleanup)(void) = nullptr)
{
	/* before Initialize(), which removes the flags it knows */
	ErrorCounter rep(format_reporter(argc, argv));

	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
		if (cleanup != nullptr)
			cleanup();
		rte_eal_cleanup();
		return 1;
	}

	benchmark::RunSpecifiedBenchmarks(&rep);
	benchmark::Shutdown();
	if (cleanup != nullptr)
		cleanup();
	rte_eal_cleanup();
	if (rep.errors() != 0) {
		fprintf(stderr, "%u benchmark run(s) reported an error\n",
			rep.errors());
		return 1;
	}
	return 0;
}

} /* namespace ewyk_bench */

#endif /* EWYK_BENCH_COMMON_H */
