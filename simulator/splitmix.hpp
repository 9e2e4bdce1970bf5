// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
// the golden-ratio increment and the finaliser. The simulator draws its reproducible "random"
// choices from it: the L2's sampled victims and partition homes, and the spread block starts.
#pragma once

#include <cstdint>

namespace tilescope::sim {

// The splitmix64 output for state `x`: (x + golden ratio), mixed. Neighbouring inputs give
// independent outputs; the generator advances its state by 0x9e3779b97f4a7c15 per draw.
inline std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

}  // namespace tilescope::sim
