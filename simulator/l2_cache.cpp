#include "simulator/l2_cache.hpp"

#include <algorithm>
#include <bit>

namespace tilescope::sim {

void L2Cache::reset(std::int64_t capacity_bytes, std::int64_t min_chunk_bytes, std::size_t buffers) {
    capacity_bytes_ = std::max<std::int64_t>(capacity_bytes, 0);
    used_bytes_ = 0;
    dirty_bytes_ = 0;
    nodes_.clear();
    free_.clear();
    head_ = tail_ = kNil;
    // The hash table starts small and doubles as chunks arrive (kept at most half full). Sizing
    // it for the bound on live chunks (capacity / min_chunk_bytes + one clipped chunk per
    // buffer) made it mostly empty and its probes missed the CPU cache.
    (void)min_chunk_bytes;
    (void)buffers;
    live_ = 0;
    rehash(1024);
}

void L2Cache::rehash(std::uint64_t slots) {
    table_.assign(slots, TableSlot{});
    table_mask_ = slots - 1;
    table_shift_ = 64 - std::countr_zero(slots) + kGroupBits;  // slots >= 1024 > 2^kGroupBits
    for (std::uint32_t n = head_; n != kNil; n = nodes_[n].next) table_insert(nodes_[n].key, n);
}

void L2Cache::set_buffer(std::uint32_t id, std::int64_t bytes, std::int64_t chunk_bytes) {
    if (buffers_.size() <= id) buffers_.resize(id + 1);
    BufferInfo& b = buffers_[id];
    b.bytes = bytes;
    b.chunk_bytes = chunk_bytes;
    b.chunk_shift = std::countr_zero(static_cast<std::uint64_t>(chunk_bytes));
}

std::uint32_t L2Cache::find(std::uint64_t key) const {
    std::uint64_t s = slot_of(key);
    while (true) {
        const TableSlot& t = table_[s];
        if (t.key == key) return t.node;
        if (t.key == kEmptyKey) return kNil;
        s = (s + 1) & table_mask_;
    }
}

void L2Cache::table_insert(std::uint64_t key, std::uint32_t node) {
    std::uint64_t s = slot_of(key);
    while (table_[s].key != kEmptyKey) s = (s + 1) & table_mask_;
    table_[s] = TableSlot{key, node};
}

// Linear-probing deletion by backward shift (no tombstones, so probes stay short).
void L2Cache::table_erase(std::uint64_t key) {
    std::uint64_t s = slot_of(key);
    while (table_[s].key != key) s = (s + 1) & table_mask_;
    std::uint64_t hole = s;
    std::uint64_t j = s;
    while (true) {
        j = (j + 1) & table_mask_;
        if (table_[j].key == kEmptyKey) break;
        const std::uint64_t home = slot_of(table_[j].key);
        // Move entry j into the hole if its home is not cyclically within (hole, j].
        const bool home_in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!home_in_range) {
            table_[hole] = table_[j];
            hole = j;
        }
    }
    table_[hole] = TableSlot{};
}

void L2Cache::list_unlink(std::uint32_t n) {
    Node& x = nodes_[n];
    if (x.prev != kNil) nodes_[x.prev].next = x.next; else head_ = x.next;
    if (x.next != kNil) nodes_[x.next].prev = x.prev; else tail_ = x.prev;
    x.prev = x.next = kNil;
}

void L2Cache::list_push_front(std::uint32_t n) {
    Node& x = nodes_[n];
    x.prev = kNil;
    x.next = head_;
    if (head_ != kNil) nodes_[head_].prev = n;
    head_ = n;
    if (tail_ == kNil) tail_ = n;
}

void L2Cache::evict_one(L2Access& acc) {
    const std::uint32_t victim = tail_;
    Node& v = nodes_[victim];
    if (v.dirty) {
        acc.writeback_bytes += v.bytes;
        dirty_bytes_ -= v.bytes;
    }
    used_bytes_ -= v.bytes;
    table_erase(v.key);
    --live_;
    list_unlink(victim);
    free_.push_back(victim);
}

void L2Cache::touch(std::uint32_t id, std::int64_t begin, std::int64_t end, bool is_store,
                    L2Access& acc) {
    if (end <= begin) return;
    const BufferInfo& b = buffers_[id];
    acc.requested_bytes += end - begin;
    const std::int64_t first = begin >> b.chunk_shift;
    const std::int64_t last = (end - 1) >> b.chunk_shift;
    for (std::int64_t c = first; c <= last; ++c) {
        const std::int64_t c_begin = c << b.chunk_shift;
        const std::int64_t c_end = c_begin + b.chunk_bytes;
        const std::int64_t overlap = std::min(end, c_end) - std::max(begin, c_begin);
        const std::uint64_t key = (static_cast<std::uint64_t>(id) << 44) | static_cast<std::uint64_t>(c);
        const std::uint32_t n = find(key);
        if (n != kNil) {
            if (!is_store) acc.hit_bytes += overlap;
            if (is_store && !nodes_[n].dirty) {
                nodes_[n].dirty = true;
                dirty_bytes_ += nodes_[n].bytes;
            }
            if (head_ != n) {
                list_unlink(n);
                list_push_front(n);
            }
            continue;
        }
        // Miss: the chunk's size is clipped at the buffer's end.
        std::int64_t chunk = b.chunk_bytes;
        if (b.bytes > c_begin) chunk = std::min(chunk, b.bytes - c_begin);
        if (chunk > capacity_bytes_) {  // cannot be cached at all: streams through
            if (is_store) acc.writeback_bytes += overlap;
            else acc.fill_bytes += chunk;
            continue;
        }
        while (used_bytes_ + chunk > capacity_bytes_ && tail_ != kNil) evict_one(acc);
        std::uint32_t idx;
        if (!free_.empty()) {
            idx = free_.back();
            free_.pop_back();
        } else {
            idx = static_cast<std::uint32_t>(nodes_.size());
            nodes_.emplace_back();
        }
        Node& x = nodes_[idx];
        x.key = key;
        x.bytes = static_cast<std::uint32_t>(chunk);
        x.dirty = is_store;
        used_bytes_ += chunk;
        if (is_store) dirty_bytes_ += chunk;
        else acc.fill_bytes += chunk;
        if (static_cast<std::uint64_t>(++live_) * 2 > table_.size()) rehash(table_.size() * 2);
        table_insert(key, idx);
        list_push_front(idx);
    }
}

void L2Cache::load(std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc) {
    touch(id, begin, end, false, acc);
}

void L2Cache::store(std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc) {
    touch(id, begin, end, true, acc);
}

}  // namespace tilescope::sim
