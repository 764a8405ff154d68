# The clang_tidy test: the checks of .clang-tidy over every source of the library, the
# command-line tool and the window (not the tests), through the build's compile commands; any
# finding fails it, naming the file, the line and the check.
#
#   cmake -DSOURCE_DIR=<checkout> -DBUILD_DIR=<clang build> -P tests/check_tidy.cmake
#
# It is registered in clang builds only (CI's asan stage): clang-tidy reads that build's
# precompiled headers, which makes it a few minutes instead of many, and the GCC build's cannot
# be read. Without clang-tidy it prints "SKIPPED: …", which the test turns into a skip.
cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR OR NOT BUILD_DIR)
    message(FATAL_ERROR "check_tidy.cmake: pass -DSOURCE_DIR=<checkout> -DBUILD_DIR=<build>")
endif()
find_program(RUN_CLANG_TIDY NAMES run-clang-tidy-14 run-clang-tidy)
find_program(CLANG_TIDY NAMES clang-tidy-14 clang-tidy)
if(NOT RUN_CLANG_TIDY OR NOT CLANG_TIDY)
    message(STATUS "SKIPPED: clang-tidy is not installed (apt-get install clang-tidy)")
    return()
endif()

# The translation units of the library, svi, svi-plot and the window: their unity sources and
# any source compiled alone, none of the tests, benchmarks or fuzz targets, no generated code.
set(units "^(${BUILD_DIR}/(core|app|ui)/CMakeFiles/[^/]+/Unity/|${SOURCE_DIR}/(core|app|ui)/)")
# Findings in the project's own headers and sources (a unity source includes the latter).
set(own "^${SOURCE_DIR}/(core|app|ui)/")
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
execute_process(
    COMMAND ${RUN_CLANG_TIDY} -clang-tidy-binary ${CLANG_TIDY} -p ${BUILD_DIR} -quiet
            -j ${cores} -header-filter=${own} ${units}
    WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err
    RESULT_VARIABLE status)
# Only the findings, each once (a header's is reported by every source that includes it):
# run-clang-tidy also echoes each command and clang's "N warnings generated".
# (run-clang-tidy asks for colours: their escapes are dropped.)
string(ASCII 27 escape)
string(REGEX REPLACE "${escape}\\[[0-9;]*m" "" text "${out}\n${err}")
string(REPLACE ";" "," text "${text}")
string(REGEX MATCHALL "[^\n]*: (warning|error): [^\n]*" findings "${text}")
list(FILTER findings EXCLUDE REGEX "warnings? (generated|treated as errors)")
list(REMOVE_DUPLICATES findings)
list(LENGTH findings n)
foreach(f IN LISTS findings)
    message(STATUS "${f}")
endforeach()
if(NOT status EQUAL 0 OR n GREATER 0)
    message(FATAL_ERROR "clang-tidy: ${n} findings of .clang-tidy's checks (above)")
endif()
message(STATUS "clang-tidy: no findings")
