// Log-log scatter plot of predicted vs measured values, rendered to an Image.
//
// Layout: title on top, square log-log axes with decade grid lines labelled "1E6" etc., the
// y = x diagonal (perfect prediction) solid and the +/- band (e.g. the metric's error target)
// dashed, one colour per series (kernel family), held-out points filled and training points
// hollow, and a legend in the top-left corner of the axes.
#pragma once

#include <string>
#include <vector>

#include "validate/png.hpp"

namespace tilescope::validate {

struct ScatterPoint {
    double measured = 0;
    double predicted = 0;
    int series = 0;        // index into ScatterSpec::series_names
    bool filled = true;    // held-out points filled, training hollow
};

struct ScatterSpec {
    std::string title;
    std::string x_label = "measured";
    std::string y_label = "predicted";
    std::vector<std::string> series_names;
    double band_fraction = 0.1;   // dashed lines at y = x*(1 +/- band); 0 draws none
    int width_px = 760;
    int height_px = 760;
};

// Points with a non-positive or non-finite coordinate cannot be shown on log axes: they are
// skipped and counted in the legend ("N not shown").
Image scatter_loglog(const ScatterSpec& spec, const std::vector<ScatterPoint>& points);

// Distinct colours for series (cycled when there are more series than colours).
Rgb series_colour(int series);

}  // namespace tilescope::validate
