// Minimisation for the calibration fit, on an unconstrained parameter vector. Callers map
// bounded physical parameters to the unconstrained space (log for positive scales, logit for
// efficiencies in (0, 1]) so every trial point is legal.
//  - levenberg_marquardt(): nonlinear least squares (the calibration objective is a sum of
//    squared log errors), Jacobian by forward differences. It asks for its points in batches
//    (the base point's n neighbours at once, then several damped steps at once), so the caller
//    can evaluate points x cases in parallel.
//  - nelder_mead(): derivative-free, for any scalar objective.
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

// Residual vectors of a batch of points: out[k] holds the residuals of points[k], all of the
// same length; a non-finite residual marks the point as unusable.
using ResidualBatch = std::function<std::vector<std::vector<double>>(const std::vector<std::vector<double>>& points)>;

struct LeastSquaresOptions {
    int max_evaluations = 200;       // points evaluated (each Jacobian costs n)
    double difference_step = 0.05;   // forward-difference step in each coordinate (unconstrained units)
    double initial_damping = 1e-2;   // Marquardt's lambda, relative to diag(J^T J)
    // Damping factors tried side by side in one batch per iteration (x the current lambda);
    // the best step that lowers the cost is taken.
    std::vector<double> trial_damping = {0.1, 1.0, 10.0, 100.0};
    double tolerance = 1e-6;         // stop when a step lowers the cost by less than this share
    std::function<bool()> stop;      // optional: checked before each batch; true ends the search
};

// Minimises 0.5 * |r(x)|^2 by Levenberg-Marquardt with Marquardt's scaling (damping lambda x
// diag(J^T J) plus a small ridge, so a parameter no residual depends on stays where it is).
// Minimum::value is |r|^2 / residual count (the mean squared residual). Deterministic for a
// deterministic `r`.
Minimum levenberg_marquardt(const ResidualBatch& r, std::vector<double> start,
                            const LeastSquaresOptions& options = {});

// Solves the symmetric positive semi-definite system A x = b (n x n, row-major) by Gaussian
// elimination with partial pivoting; false if A is singular.
bool solve_linear(std::vector<double> a, std::vector<double> b, std::vector<double>& x);

// Maps between an efficiency in (0, 1) and the real line (logistic), used for the fit.
double logit(double p);
double logistic(double t);

}  // namespace tilescope::validate
