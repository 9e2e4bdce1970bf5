#include "simulator/l1_cache.hpp"

#include <algorithm>
#include <bit>

namespace tilescope::sim {

void L1Cache::reset(std::int64_t capacity_bytes, std::int64_t min_chunk_bytes, std::uint64_t random_seed) {
    rng_ = random_seed;
    live_nodes_.clear();
    capacity_bytes_ = std::max<std::int64_t>(0, capacity_bytes);
    used_bytes_ = 0;
    live_ = 0;
    lru_.clear();
    const auto max_chunks =
        static_cast<std::size_t>(capacity_bytes_ / std::max<std::int64_t>(1, min_chunk_bytes)) + 1;
    const std::size_t slots = std::bit_ceil(2 * max_chunks);
    keys_.assign(slots, kEmpty);
    node_.assign(slots, kNil);
    nodes_.clear();
    nodes_.reserve(max_chunks);
    free_.clear();
}

std::size_t L1Cache::slot_of(std::uint64_t key) const {
    // Fibonacci hashing: neighbouring chunks spread over the table.
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 20) & (keys_.size() - 1);
}

std::size_t L1Cache::find_slot(std::uint64_t key) const {
    const std::size_t mask = keys_.size() - 1;
    std::size_t s = slot_of(key);
    while (keys_[s] != kEmpty && keys_[s] != key) s = (s + 1) & mask;
    return s;
}

void L1Cache::erase_slot(std::size_t s) {
    // Backward-shift deletion: later entries of the probe run move up so no tombstones remain.
    const std::size_t mask = keys_.size() - 1;
    std::size_t hole = s;
    for (std::size_t j = (s + 1) & mask; keys_[j] != kEmpty; j = (j + 1) & mask) {
        const std::size_t home = slot_of(keys_[j]);
        // Entry j may fill the hole if its home is not in the cyclic range (hole, j].
        const bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (stays) continue;
        keys_[hole] = keys_[j];
        node_[hole] = node_[j];
        hole = j;
    }
    keys_[hole] = kEmpty;
    node_[hole] = kNil;
}

bool L1Cache::hit(std::uint32_t id, std::uint64_t c) {
    if (live_ == 0) return false;
    const std::size_t s = find_slot(key_of(id, c));
    if (keys_[s] == kEmpty) return false;
    const std::uint32_t n = node_[s];
    lru_.to_front(nodes_, n);
    return true;
}

void L1Cache::evict(std::uint32_t n) {
    lru_.unlink(nodes_, n);
    if (rng_ != 0) {  // swap-remove from the live list
        const std::uint32_t i = nodes_[n].live_index, last = live_nodes_.back();
        live_nodes_[i] = last;
        nodes_[last].live_index = i;
        live_nodes_.pop_back();
    }
    erase_slot(find_slot(nodes_[n].key));
    used_bytes_ -= nodes_[n].bytes;
    --live_;
    free_.push_back(n);
}

std::uint32_t L1Cache::victim() {
    if (rng_ == 0) return lru_.tail;
    rng_ ^= rng_ << 13;  // xorshift64 (Marsaglia 2003)
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return live_nodes_[static_cast<std::size_t>(rng_ % live_nodes_.size())];
}

void L1Cache::insert(std::uint32_t id, std::uint64_t c, std::int64_t bytes) {
    if (bytes <= 0 || bytes > capacity_bytes_) return;
    // Evict for room; and keep the table at most half full (clipped chunks at a buffer's end can
    // be smaller than min_chunk_bytes).
    while (live_ > 0 && (used_bytes_ + bytes > capacity_bytes_ || 2 * (live_ + 1) > keys_.size())) evict(victim());
    const std::uint32_t n = take_node(nodes_, free_);
    const std::uint64_t key = key_of(id, c);
    nodes_[n].key = key;
    nodes_[n].bytes = bytes;
    lru_.push_front(nodes_, n);
    if (rng_ != 0) {
        nodes_[n].live_index = static_cast<std::uint32_t>(live_nodes_.size());
        live_nodes_.push_back(n);
    }
    const std::size_t s = find_slot(key);
    keys_[s] = key;
    node_[s] = n;
    used_bytes_ += bytes;
    ++live_;
}

}  // namespace tilescope::sim
