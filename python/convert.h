#pragma once
// What the Python module hands to Python: a run's trace as columns, a snapshot, and the fit's
// preview (core/data/preview.h) and data as numpy arrays. No branch on a model: each part of the
// preview the trainer published becomes its key.

#include "core/data/data_set.h"
#include "core/run/runner.h"

#include <Eigen/Core>
#include <QJsonDocument>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <vector>

namespace svi::python {

namespace py = pybind11;

// A C-ordered (row-major) numpy copy of an Eigen matrix or array, of its scalar type.
template <typename Derived> py::array numpyOf(const Eigen::DenseBase<Derived>& m)
{
    using T = typename Derived::Scalar;
    py::array_t<T> a({py::ssize_t(m.rows()), py::ssize_t(m.cols())});
    auto v = a.template mutable_unchecked<2>();
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            v(r, c) = m.derived().coeff(r, c);
    return a;
}

// A vector's numpy copy (one dimension).
template <typename Derived> py::array numpyOfVector(const Eigen::DenseBase<Derived>& v)
{
    using T = typename Derived::Scalar;
    py::array_t<T> a(py::ssize_t(v.size()));
    auto w = a.template mutable_unchecked<1>();
    for (Eigen::Index i = 0; i < v.size(); ++i)
        w(i) = v.derived().coeff(i);
    return a;
}

// The trace as columns: step (int64), epochs, train_seconds, wall_seconds, rho, elbo, then
// every metric any snapshot reported (NaN where a snapshot did not), each a numpy array.
py::dict traceColumns(const std::vector<Snapshot>& trace);

// One snapshot: step, epochs, train_seconds, wall_seconds, rho, elbo, final, metrics (a dict).
py::dict snapshotDict(const Snapshot& s);

// The preview's parts as numpy, keyed by what they are (image, atoms, topics, user_factors, …);
// with `data`, an image task's original, observed and mask images too.
py::dict outputsOf(const Preview* preview, const DataSet* data);

// JSON text as a Python object (json.loads).
py::object pythonOf(const QJsonDocument& json);

} // namespace svi::python
