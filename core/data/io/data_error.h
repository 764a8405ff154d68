#pragma once
// A data file that cannot be used. The message names the file and the reason, e.g.
// "cannot read 'x.png': file is empty".

#include <stdexcept>
#include <string>

namespace svi {

class DataError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

} // namespace svi
