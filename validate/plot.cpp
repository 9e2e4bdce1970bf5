#include "validate/plot.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace tilescope::validate {

namespace {

constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kGrid{225, 225, 225};
constexpr Rgb kBand{150, 150, 150};

std::string decade_label(int exponent) { return "1E" + std::to_string(exponent); }

}  // namespace

Rgb series_colour(int series) {
    static constexpr Rgb kPalette[] = {
        {31, 119, 180}, {214, 39, 40}, {44, 160, 44}, {255, 127, 14},
        {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {23, 190, 207}};
    constexpr int n = static_cast<int>(sizeof(kPalette) / sizeof(kPalette[0]));
    return kPalette[((series % n) + n) % n];
}

Image scatter_loglog(const ScatterSpec& spec, const std::vector<ScatterPoint>& points) {
    Image img(spec.width_px, spec.height_px, kWhite);
    const int left = 100, right = 24, top = 50, bottom = 70;
    const int x0 = left, x1 = spec.width_px - right;      // axes box in pixels
    const int y0 = top, y1 = spec.height_px - bottom;

    // Shared range for both axes (so y = x is the diagonal), widened to whole decades.
    double lo = INFINITY, hi = -INFINITY;
    int hidden = 0;
    for (const auto& p : points) {
        if (!(p.measured > 0) || !(p.predicted > 0) || !std::isfinite(p.measured) ||
            !std::isfinite(p.predicted)) {
            ++hidden;
            continue;
        }
        lo = std::min({lo, p.measured, p.predicted});
        hi = std::max({hi, p.measured, p.predicted});
    }
    if (!(lo <= hi)) {
        lo = 1;
        hi = 10;
    }
    int e_lo = static_cast<int>(std::floor(std::log10(lo)));
    int e_hi = static_cast<int>(std::ceil(std::log10(hi)));
    if (e_hi <= e_lo) e_hi = e_lo + 1;
    const double l_lo = e_lo, l_hi = e_hi;

    auto px = [&](double v) {
        return x0 + static_cast<int>(std::lround((std::log10(v) - l_lo) / (l_hi - l_lo) * (x1 - x0)));
    };
    auto py = [&](double v) {
        return y1 - static_cast<int>(std::lround((std::log10(v) - l_lo) / (l_hi - l_lo) * (y1 - y0)));
    };

    // Grid: decades (labelled) and 2..9 minor lines when there are few decades.
    const bool minor = (e_hi - e_lo) <= 4;
    for (int e = e_lo; e <= e_hi; ++e) {
        const double base = std::pow(10.0, e);
        if (minor && e < e_hi)
            for (int m = 2; m <= 9; ++m) {
                img.line(px(base * m), y0, px(base * m), y1, {242, 242, 242});
                img.line(x0, py(base * m), x1, py(base * m), {242, 242, 242});
            }
        img.line(px(base), y0, px(base), y1, kGrid);
        img.line(x0, py(base), x1, py(base), kGrid);
        const std::string lab = decade_label(e);
        img.text(px(base) - Image::text_width(lab) / 2, y1 + 8, lab, kBlack);
        img.text(x0 - 8 - Image::text_width(lab), py(base) - Image::text_height() / 2, lab, kBlack);
    }

    // Diagonal and error band.
    const double a = std::pow(10.0, l_lo), b = std::pow(10.0, l_hi);
    img.line(px(a), py(a), px(b), py(b), kBlack, 1);
    if (spec.band_fraction > 0) {
        for (const double f : {1.0 + spec.band_fraction, 1.0 - spec.band_fraction}) {
            // y = f*x clipped to the box
            double xa = a, xb = b;
            if (f > 1) xb = b / f;
            else xa = a / f;
            img.line(px(xa), py(xa * f), px(xb), py(xb * f), kBand, 1, 6);
        }
    }
    // Axes box.
    img.line(x0, y0, x1, y0, kBlack);
    img.line(x0, y1, x1, y1, kBlack);
    img.line(x0, y0, x0, y1, kBlack);
    img.line(x1, y0, x1, y1, kBlack);

    // Points (hollow training points first so filled held-out points stay visible).
    for (const bool pass_filled : {false, true})
        for (const auto& p : points) {
            if (p.filled != pass_filled) continue;
            if (!(p.measured > 0) || !(p.predicted > 0) || !std::isfinite(p.measured) ||
                !std::isfinite(p.predicted))
                continue;
            img.circle(px(p.measured), py(p.predicted), 4, series_colour(p.series), p.filled);
        }

    // Title and axis labels.
    img.text((spec.width_px - Image::text_width(spec.title)) / 2, 16, spec.title, kBlack);
    img.text((x0 + x1 - Image::text_width(spec.x_label)) / 2, spec.height_px - 28, spec.x_label, kBlack);
    img.text(22, (y0 + y1 + Image::text_width(spec.y_label)) / 2, spec.y_label, kBlack, 2, true);

    // Legend.
    int ly = y0 + 10;
    const int lx = x0 + 12;
    for (std::size_t s = 0; s < spec.series_names.size(); ++s) {
        img.circle(lx + 4, ly + 6, 4, series_colour(static_cast<int>(s)), true);
        img.text(lx + 16, ly, spec.series_names[s], kBlack);
        ly += 20;
    }
    img.circle(lx + 4, ly + 6, 4, kBlack, true);
    img.text(lx + 16, ly, "held-out", kBlack);
    ly += 20;
    img.circle(lx + 4, ly + 6, 4, kBlack, false);
    img.text(lx + 16, ly, "train", kBlack);
    ly += 20;
    if (spec.band_fraction > 0) {
        img.line(lx, ly + 6, lx + 10, ly + 6, kBand, 1, 3);
        img.text(lx + 16, ly,
                 "+/-" + std::to_string(static_cast<int>(std::lround(spec.band_fraction * 100))) + "%",
                 kBlack);
        ly += 20;
    }
    if (hidden > 0) img.text(lx, ly, std::to_string(hidden) + " not shown (<= 0)", kBlack);
    return img;
}

}  // namespace tilescope::validate
