// LruList: a cache's recency order as an intrusive doubly linked list of indices into the
// cache's node vector (head = most recent, tail = next victim). L2Cache and L1Cache keep their
// own node types and lookup tables and order their nodes with this; a Node needs `prev` and
// `next` (std::uint32_t, LruList::kNil = none).
#pragma once

#include <cstdint>
#include <vector>

namespace tilescope::sim {

struct LruList {
    static constexpr std::uint32_t kNil = 0xffffffffu;
    std::uint32_t head = kNil, tail = kNil;

    void clear() { head = tail = kNil; }

    template <class Node>
    void unlink(std::vector<Node>& nodes, std::uint32_t n) {
        Node& x = nodes[n];
        if (x.prev != kNil) nodes[x.prev].next = x.next; else head = x.next;
        if (x.next != kNil) nodes[x.next].prev = x.prev; else tail = x.prev;
        x.prev = x.next = kNil;
    }

    template <class Node>
    void push_front(std::vector<Node>& nodes, std::uint32_t n) {
        Node& x = nodes[n];
        x.prev = kNil;
        x.next = head;
        if (head != kNil) nodes[head].prev = n;
        head = n;
        if (tail == kNil) tail = n;
    }

    // Makes `n` (linked) the most recent node.
    template <class Node>
    void to_front(std::vector<Node>& nodes, std::uint32_t n) {
        if (n == head) return;
        unlink(nodes, n);
        push_front(nodes, n);
    }
};

// A node index for a new entry: a freed one if any, else a new node at the end of `nodes`.
template <class Node>
std::uint32_t take_node(std::vector<Node>& nodes, std::vector<std::uint32_t>& free) {
    if (!free.empty()) {
        const std::uint32_t n = free.back();
        free.pop_back();
        return n;
    }
    nodes.emplace_back();
    return static_cast<std::uint32_t>(nodes.size() - 1);
}

}  // namespace tilescope::sim
