#include "simulator/buffer_layout.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace tilescope::sim {

namespace {

constexpr std::int64_t kMaxChunkBytes = 64 * 1024;

std::int64_t lowest_power_of_two(std::int64_t g) { return g & -g; }

}  // namespace

Result<bool> check_region(const Launch& launch, const Region& r, std::int64_t item) {
    const auto where = [&] { return "launch " + launch.name + " work item " + std::to_string(item) + ": "; };
    if (r.buffer >= launch.buffers.size()) {
        return make_error(where() + "region names buffer " + std::to_string(r.buffer) + " but the launch has " +
                          std::to_string(launch.buffers.size()) + " buffers");
    }
    if (r.offset_bytes < 0 || r.row_bytes < 0 || r.rows < 0 ||
        (r.rows > 1 && r.stride_bytes < r.row_bytes)) {
        return make_error(where() + "region of buffer " + launch.buffers[r.buffer].name +
                          " has a negative size/offset or a stride below its row length");
    }
    if (r.rows > 0 && r.row_bytes > 0) {
        const std::int64_t end = r.offset_bytes + (r.rows - 1) * r.stride_bytes + r.row_bytes;
        if (end > launch.buffers[r.buffer].bytes) {
            return make_error(where() + "region of buffer " + launch.buffers[r.buffer].name + " ends at byte " +
                              std::to_string(end) + " past the buffer's " +
                              std::to_string(launch.buffers[r.buffer].bytes) + " bytes");
        }
    }
    return true;
}

Result<BufferLayout> make_buffer_layout(const std::vector<Launch>& launches, const Hardware& hw,
                                        LayoutScan scan) {
    BufferLayout layout;
    std::map<std::string, std::uint32_t> by_name;
    for (const Launch& launch : launches) {
        std::vector<std::uint32_t> ids;
        for (const Buffer& b : launch.buffers) {
            auto [it, inserted] = by_name.try_emplace(b.name, static_cast<std::uint32_t>(layout.names.size()));
            if (inserted) {
                layout.names.push_back(b.name);
                layout.bytes.push_back(b.bytes);
            } else {
                layout.bytes[it->second] = std::max(layout.bytes[it->second], b.bytes);
            }
            ids.push_back(it->second);
        }
        layout.ids.push_back(std::move(ids));
    }
    // gcd of every row start and row length per global buffer (0 = never touched).
    std::vector<std::int64_t> g(layout.names.size(), 0);
    if (scan != LayoutScan::none) {
        std::vector<Step> steps;
        std::vector<std::int64_t> sample;
        for (std::size_t li = 0; li < launches.size(); ++li) {
            const Launch& launch = launches[li];
            const std::int64_t items = launch.persistent ? launch.work_items : launch.blocks();
            sample.clear();
            constexpr std::int64_t kEdge = 1024, kSpread = 2048;
            if (scan == LayoutScan::full || items <= 2 * kEdge + kSpread) {
                for (std::int64_t i = 0; i < items; ++i) sample.push_back(i);
            } else {
                for (std::int64_t i = 0; i < kEdge; ++i) sample.push_back(i);
                for (std::int64_t k = 0; k < kSpread; ++k) sample.push_back(kEdge + (items - 2 * kEdge) * k / kSpread);
                for (std::int64_t i = items - kEdge; i < items; ++i) sample.push_back(i);
            }
            for (const std::int64_t item : sample) {
                steps.clear();
                launch.program(item, steps);
                for (const Step& s : steps) {
                    if (s.kind != StepKind::load && s.kind != StepKind::store) continue;
                    const Region& r = s.region;
                    auto ok = check_region(launch, r, item);
                    if (!ok) return ok.error();
                    if (r.rows == 0 || r.row_bytes == 0) continue;
                    std::int64_t& x = g[layout.ids[li][r.buffer]];
                    x = std::gcd(x, r.offset_bytes);
                    if (r.rows == 1 || r.stride_bytes == r.row_bytes) {
                        x = std::gcd(x, r.rows * r.row_bytes);
                    } else {
                        x = std::gcd(x, r.row_bytes);
                        x = std::gcd(x, r.stride_bytes);
                    }
                }
            }
        }
    }
    const std::int64_t sector = hw.l2_sector_bytes > 0 ? hw.l2_sector_bytes : 32;
    layout.min_chunk_bytes = kMaxChunkBytes;
    for (std::int64_t x : g) {
        std::int64_t chunk = x == 0 ? kMaxChunkBytes : lowest_power_of_two(x);
        layout.at_floor.push_back(chunk <= sector ? 1 : 0);
        chunk = std::clamp(chunk, sector, kMaxChunkBytes);
        layout.chunk_bytes.push_back(chunk);
        layout.min_chunk_bytes = std::min(layout.min_chunk_bytes, chunk);
    }
    return layout;
}

}  // namespace tilescope::sim
