// MovieLens ratings.csv (with movies.csv beside it): see fuzz_ratings.h.

#include "tests/fuzz/fuzz_ratings.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return svi::fuzz::fuzzRatings(data, size, "ratings.csv", "movies.csv");
}
