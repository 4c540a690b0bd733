#include "stax/driver/timing.h"

#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace stax::driver {

namespace {

// Resets the peak resident set to the current one (Linux 4.0 and later); false when refused.
bool reset_peak() {
  std::ofstream clear("/proc/self/clear_refs");
  if (!clear) return false;
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

std::string format_bytes(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%8.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

std::uint64_t peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      std::uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(4096, '\n');
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

PassTimer::Start PassTimer::begin() {
  if (!reset_peak()) resettable_ = false;
  return Start{std::chrono::steady_clock::now(), cpu_seconds()};
}

void PassTimer::end(std::string name, Start start) {
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start.wall;
  passes_.push_back({std::move(name), elapsed.count(), cpu_seconds() - start.cpu, peak_resident_bytes()});
}

std::string PassTimer::report(const std::string& title) const {
  double total = 0, cpu = 0;
  std::uint64_t peak = 0;
  for (const PassTime& p : passes_) {
    total += p.seconds;
    cpu += p.cpu_seconds;
    peak = p.peak_bytes > peak ? p.peak_bytes : peak;
  }
  const std::string rule(76, '-');
  std::string s = "===" + rule + "===\n";
  s += "  staxc pass timings: " + title + "\n";
  s += "===" + rule + "===\n";
  char line[160];
  std::snprintf(line, sizeof line, "  Total: %.4f s CPU, %.4f s wall; peak resident memory %s%s\n\n", cpu, total,
                format_bytes(peak).c_str(), resettable_ ? "" : " (peaks are since the start of the process)");
  s += line;
  s += "    cpu (s)   wall (s)    share    peak memory   pass\n";
  for (const PassTime& p : passes_) {
    double share = total > 0 ? 100.0 * p.seconds / total : 0.0;
    std::snprintf(line, sizeof line, "  %9.4f  %9.4f  %6.1f%%  %s   %s\n", p.cpu_seconds, p.seconds, share,
                  format_bytes(p.peak_bytes).c_str(), p.name.c_str());
    s += line;
  }
  std::snprintf(line, sizeof line, "  %9.4f  %9.4f  %6.1f%%  %s   total\n", cpu, total, 100.0, format_bytes(peak).c_str());
  return s + line;
}

}  // namespace stax::driver
