// Derivative-free minimisation for the calibration fit: Nelder-Mead on an unconstrained
// parameter vector. Callers map bounded physical parameters to the unconstrained space
// (log for positive scales, logit for efficiencies in (0, 1]) so every trial point is legal.
#pragma once

#include <functional>
#include <vector>

namespace tilescope::validate {

struct NelderMeadOptions {
    int max_evaluations = 200;
    double initial_step = 0.3;   // simplex edge in each coordinate (unconstrained units)
    double tolerance = 1e-7;     // stop when the simplex's value spread falls below this
    std::function<bool()> stop;  // optional: checked once per iteration; true ends the search
};

struct Minimum {
    std::vector<double> x;
    double value = 0;
    int evaluations = 0;
    bool converged = false;
};

// Standard Nelder-Mead (reflection 1, expansion 2, contraction 1/2, shrink 1/2). Deterministic.
// A non-finite objective value is treated as +infinity (the point is rejected).
Minimum nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                    std::vector<double> start, const NelderMeadOptions& options = {});

// Maps between an efficiency in (0, 1) and the real line (logistic), used for the fit.
double logit(double p);
double logistic(double t);

}  // namespace tilescope::validate
