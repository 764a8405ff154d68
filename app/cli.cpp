#include "app/cli.h"

#include <cstdio>

namespace svi::cli {

int main(int, char**)
{
    std::fprintf(stderr, "svi: not built yet\n");
    return 1;
}

} // namespace svi::cli
