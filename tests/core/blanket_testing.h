#pragma once
// Black-box VI's Markov blankets of a positive model (PositiveModel::blankets), checked against
// the log joint: moving one variable changes its blanket by exactly what it changes log f
// (every factor that holds it is in its blanket, at its weight), and the return value is log f.

#include "core/inference/positive_sgvb.h"

#include <QtTest>
#include <cmath>

namespace test_support {

inline void checkBlankets(const svi::PositiveModel& model, const Eigen::ArrayXd& x)
{
    const Eigen::Index n = model.size();
    Eigen::ArrayXd grad(n), blanket(n), moved(n);
    const double lf = model.logJoint(x, grad);
    const double tolerance = 1e-9 * (std::abs(lf) + 1.0);
    QVERIFY(std::abs(model.blankets(x, blanket) - lf) < tolerance);
    for (Eigen::Index v = 0; v < n; ++v) {
        Eigen::ArrayXd y = x;
        y[v] *= 1.3;
        const double change = model.logJoint(y, grad) - lf;
        model.blankets(y, moved);
        QVERIFY2(std::abs(moved[v] - blanket[v] - change) < tolerance,
                 qPrintable(QString("variable %1: blanket moved %2, log joint %3")
                                .arg(v)
                                .arg(moved[v] - blanket[v])
                                .arg(change)));
    }
}

} // namespace test_support
