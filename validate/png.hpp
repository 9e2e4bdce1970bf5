// A small RGB raster and a PNG encoder for it (8-bit truecolour, no interlace).
//
// Why our own: the report's scatter plots must be written by the CPU-only CLI, with no GUI and
// no new dependency. PNG needs only CRC-32 and zlib's DEFLATE; both come from Debian's zlib
// (zlib1g-dev, already a dependency of Qt and Boost), so the encoder is ~60 lines and the
// drawing (lines, rectangles, circles, a 5x7 bitmap font) lives in raster.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace tilescope::validate {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
};

class Image {
public:
    Image(int width, int height, Rgb background);
    int width() const { return width_; }
    int height() const { return height_; }
    // Out-of-range coordinates are clipped (ignored), so callers may draw past the edges.
    void set(int x, int y, Rgb c);
    Rgb get(int x, int y) const;
    void fill_rect(int x0, int y0, int x1, int y1, Rgb c);  // inclusive corners, any order
    void line(int x0, int y0, int x1, int y1, Rgb c, int thickness = 1, int dash_px = 0);
    void circle(int cx, int cy, int radius, Rgb c, bool filled);
    // 5x7 bitmap font scaled by `scale`; lower case is drawn as upper case, unknown characters
    // as a box. `vertical` draws bottom-to-top (rotated 90 degrees counter-clockwise) starting at
    // (x, y) = bottom-left of the first glyph.
    void text(int x, int y, std::string_view s, Rgb c, int scale = 2, bool vertical = false);
    static int text_width(std::string_view s, int scale = 2) {
        return static_cast<int>(s.size()) * 6 * scale;
    }
    static int text_height(int scale = 2) { return 7 * scale; }
    const std::vector<std::uint8_t>& rgb() const { return rgb_; }

private:
    int width_;
    int height_;
    std::vector<std::uint8_t> rgb_;
};

// The PNG file bytes of `image` (signature, IHDR, one zlib IDAT, IEND).
std::string encode_png(const Image& image);
Status write_png(const Image& image, const std::string& path);

}  // namespace tilescope::validate
