// l2_probe_replay: the access patterns of tilescope-l2-reuse-probe (kernels/tools/l2_reuse_probe.cu)
// replayed through the simulator's L2 (simulator/l2_cache.hpp, L2System), so that the model's
// re-read curve can be put next to the one the probe measured on the H100 (docs/validation
// changes 30 and 38; bench/scripts/l2_reuse_summary.py prints the measured one).
//
// The probe, per size D: a 256 MiB read of a flush buffer F (clean lines everywhere), then D bytes
// of X read (`read`), or read and each 16 bytes stored to Y (`copy`), then D bytes of X read again;
// the second read's DRAM bytes / D is the share the L2 did not keep. Every access is a 16-byte
// vector per lane in a grid-stride loop of sms x 8 blocks of 256 threads, so each block touches
// 4 KiB in a row per loop step, and block b runs on SM b % sms (the probe's grid is one wave).
// The replay touches the same 4 KiB segments in the same order from the same SM's partition
// (SM m -> partition m % partitions, as the simulator dispatches), one chunk per segment.
//
// Usage: l2_probe_replay [--capacity-mib 50] [--partitions 2] [--dirty-limit 0.473] [--sms 132]
//                       [--ways W] (W > 0: sampled victims, L2Cache::reset; 0: exact LRU)
//                       [--store-copy 0|1] (1: a far store keeps a clean near copy, L2System::reset)
//                       [--clean-victims 0|1] (1: a draw's victim is its least recent clean chunk,
//                       L2Cache::set_clean_victims; needs --ways > 0)
//                       [--dirty-weight K] (K >= 1: a dirty chunk takes K times its bytes of room,
//                       L2Cache::set_dirty_weight, change 91; 1 = the default)
//                       [--dirty-age-weight W] (W in (0, 1]: a dirty chunk's age counted at W times
//                       its own when a victim is picked, L2Cache::set_dirty_age_weight; needs --ways > 0)
//                       [--patterns read,copy] (also store_read, read_store, copy_half, copy_frag,
//                       fstore_read: the probe's `variants` patterns, docs/validation changes 78-79;
//                       the model's L2 does not tell half-sector stores from whole ones, so
//                       copy_frag replays as copy and fstore_read as store_read)
//                       [--writes] (two more columns: the dirty bytes written back to DRAM during
//                       the first pass (every launch before the re-read) and during the re-read, / D)
// Prints "pattern MiB re-read-from-DRAM" lines, the format of l2_reuse_summary.py.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "simulator/l2_cache.hpp"

using tilescope::sim::L2Access;
using tilescope::sim::L2System;

int main(int argc, char** argv) {
    double capacity_mib = 50, dirty_limit = 0.473, dirty_weight = 1, dirty_age_weight = 1;
    int partitions = 2, sms = 132, ways = 0, store_copy = 0, clean_victims = 0;
    std::string pattern_list = "read,copy";
    bool writes = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--writes") { writes = true; continue; }
        if (i + 1 >= argc) { std::fprintf(stderr, "l2_probe_replay: %s needs a value\n", a.c_str()); return 2; }
        const char* v = argv[++i];
        if (a == "--capacity-mib") capacity_mib = std::atof(v);
        else if (a == "--dirty-limit") dirty_limit = std::atof(v);
        else if (a == "--partitions") partitions = std::atoi(v);
        else if (a == "--sms") sms = std::atoi(v);
        else if (a == "--ways") ways = std::atoi(v);
        else if (a == "--store-copy") store_copy = std::atoi(v);
        else if (a == "--clean-victims") clean_victims = std::atoi(v);
        else if (a == "--dirty-weight") dirty_weight = std::atof(v);
        else if (a == "--dirty-age-weight") dirty_age_weight = std::atof(v);
        else if (a == "--patterns") pattern_list = v;
        else { std::fprintf(stderr, "l2_probe_replay: unknown option %s\n", a.c_str()); return 2; }
    }
    if (capacity_mib <= 0 || partitions < 1 || sms < 1 || dirty_limit < 0 || dirty_limit > 1 || !(dirty_weight >= 1 && dirty_weight <= 16) ||
        !(dirty_age_weight > 0 && dirty_age_weight <= 1)) {
        std::fprintf(stderr, "l2_probe_replay: need --capacity-mib > 0, --partitions >= 1, --sms >= 1, --dirty-limit in [0, 1], --dirty-weight in [1, 16], --dirty-age-weight in (0, 1]\n");
        return 2;
    }
    constexpr std::int64_t kSeg = 4096;  // one block's bytes per loop step (256 threads x 16 B)
    constexpr std::int64_t kFlush = std::int64_t{256} << 20, kMost = std::int64_t{160} << 20;
    const std::int64_t blocks = std::int64_t{sms} * 8;
    const auto capacity = static_cast<std::int64_t>(capacity_mib * 1048576.0);
    const int mib[] = {2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 56, 64, 80, 96, 128, 160};
    enum : std::uint32_t { kF = 0, kX = 1, kY = 2 };
    static constexpr const char* kPatterns[] = {"read",      "copy",      "store_read", "read_store",
                                                "copy_half", "copy_frag", "fstore_read"};
    std::vector<std::string> patterns;
    for (std::size_t at = 0; at <= pattern_list.size();) {
        const std::size_t end = std::min(pattern_list.find(',', at), pattern_list.size());
        const std::string p = pattern_list.substr(at, end - at);
        if (std::find(std::begin(kPatterns), std::end(kPatterns), p) == std::end(kPatterns)) {
            std::string known;
            for (const char* k : kPatterns) known += (known.empty() ? "" : ", ") + std::string(k);
            std::fprintf(stderr, "l2_probe_replay: --patterns: unknown pattern '%s' (%s)\n", p.c_str(), known.c_str());
            return 2;
        }
        patterns.push_back(p);
        at = end + 1;
    }
    std::printf("pattern  MiB  re-read from DRAM\n");
    for (const std::string& pattern : patterns) {
        for (const int m : mib) {
            L2System l2;
            l2.reset(capacity, partitions, 32, 3, dirty_limit, ways, store_copy != 0);
            l2.set_clean_victims(clean_victims != 0);
            l2.set_dirty_weight(dirty_weight);
            l2.set_dirty_age_weight(dirty_age_weight);
            l2.set_buffer(kF, kFlush, kSeg);
            l2.set_buffer(kX, kMost, kSeg);
            l2.set_buffer(kY, kMost, kSeg);
            auto part = [&](std::int64_t s) { return l2.partition_of_sm(static_cast<int>((s % blocks) % sms)); };
            L2Access first, second;
            for (std::int64_t s = 0; s < kFlush / kSeg; ++s) l2.load(part(s), kF, s * kSeg, (s + 1) * kSeg, first);
            const std::int64_t n = (std::int64_t{m} << 20) / kSeg;
            const auto read_x = [&] { for (std::int64_t s = 0; s < n; ++s) l2.load(part(s), kX, s * kSeg, (s + 1) * kSeg, first); };
            const auto store_y = [&] { for (std::int64_t s = 0; s < n; ++s) l2.store(part(s), kY, s * kSeg, (s + 1) * kSeg, first); };
            if (pattern == "store_read" || pattern == "fstore_read") { store_y(); read_x(); }
            else if (pattern == "read_store") { read_x(); store_y(); }
            else if (pattern == "read") read_x();
            else {  // copy, copy_frag, copy_half: each segment read, then stored (copy_half: the even segments only)
                for (std::int64_t s = 0; s < n; ++s) {
                    l2.load(part(s), kX, s * kSeg, (s + 1) * kSeg, first);
                    if (pattern != "copy_half" || s % 2 == 0) l2.store(part(s), kY, s * kSeg, (s + 1) * kSeg, first);
                }
            }
            for (std::int64_t s = 0; s < n; ++s) l2.load(part(s), kX, s * kSeg, (s + 1) * kSeg, second);
            const double d = static_cast<double>(n * kSeg);
            if (writes)
                std::printf("%-7s %4d  %.3f  %.3f  %.3f\n", pattern.c_str(), m, static_cast<double>(second.fill_bytes) / d,
                            static_cast<double>(first.writeback_bytes) / d, static_cast<double>(second.writeback_bytes) / d);
            else
                std::printf("%-7s %4d  %.3f\n", pattern.c_str(), m, static_cast<double>(second.fill_bytes) / d);
        }
    }
    return 0;
}
