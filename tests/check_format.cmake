# The clang_format test: every C++ source under core/, app/, ui/ and tests/ is formatted as the
# repository's .clang-format says, so that diffs show only real changes.
#
#   cmake -DSOURCE_DIR=<checkout> -P tests/check_format.cmake
#
# The files are the tracked ones (git ls-files) in a git checkout, else those a glob finds (a
# source archive). Fails naming every file that clang-format would change. Without clang-format
# it prints "SKIPPED: …", which the test's SKIP_REGULAR_EXPRESSION turns into a skip, not a
# pass. The project's style is that of clang-format 14 (Debian 12's), so that version is
# preferred when several are installed.
cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR)
    message(FATAL_ERROR "check_format.cmake: pass -DSOURCE_DIR=<the source checkout>")
endif()

find_program(CLANG_FORMAT NAMES clang-format-14 clang-format)
if(NOT CLANG_FORMAT)
    message(STATUS "SKIPPED: clang-format is not installed (apt-get install clang-format)")
    return()
endif()
execute_process(COMMAND ${CLANG_FORMAT} --version OUTPUT_VARIABLE version
                OUTPUT_STRIP_TRAILING_WHITESPACE)
message(STATUS "${version}")

set(dirs core app ui python tests)
set(files)
find_program(GIT git)
set(in_git FALSE)
if(GIT)
    # The checkout's own repository, not one it was unpacked inside.
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --show-toplevel
                    RESULT_VARIABLE failed OUTPUT_VARIABLE top ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    file(REAL_PATH "${SOURCE_DIR}" source_real)
    if(NOT failed AND top)
        file(REAL_PATH "${top}" top_real)
        if(top_real STREQUAL source_real)
            set(in_git TRUE)
        endif()
    endif()
endif()
if(in_git)
    set(patterns)
    foreach(dir IN LISTS dirs)
        list(APPEND patterns "${dir}/*.cpp" "${dir}/*.h")
    endforeach()
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} ls-files -- ${patterns}
                    OUTPUT_VARIABLE listed RESULT_VARIABLE failed
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(failed)
        message(FATAL_ERROR "check_format.cmake: git ls-files failed in ${SOURCE_DIR}")
    endif()
    string(REPLACE "\n" ";" files "${listed}")
    set(origin "git ls-files")
else()
    foreach(dir IN LISTS dirs)
        file(GLOB_RECURSE found RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${dir}/*.cpp
             ${SOURCE_DIR}/${dir}/*.h)
        list(APPEND files ${found})
    endforeach()
    list(SORT files)
    set(origin "a glob (not a git checkout)")
endif()
list(LENGTH files count)
if(count EQUAL 0)
    message(FATAL_ERROR "check_format.cmake: no C++ source found under ${dirs} in ${SOURCE_DIR}")
endif()

# One clang-format process for all the files; its messages name each file it would change.
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${files}
                WORKING_DIRECTORY ${SOURCE_DIR}
                RESULT_VARIABLE result ERROR_VARIABLE messages OUTPUT_QUIET)
if(result EQUAL 0)
    message(STATUS "${count} files from ${origin}: all formatted")
    return()
endif()
string(REGEX MATCHALL "[^\n]+:[0-9]+:[0-9]+: error:" hits "${messages}")
set(unformatted)
foreach(hit IN LISTS hits)
    string(REGEX REPLACE ":[0-9]+:[0-9]+: error:$" "" file "${hit}")
    list(APPEND unformatted ${file})
endforeach()
list(REMOVE_DUPLICATES unformatted)
if(NOT unformatted)
    message(FATAL_ERROR "clang-format failed (exit ${result}):\n${messages}")
endif()
list(LENGTH unformatted bad)
list(JOIN unformatted "\n  " names)
message(FATAL_ERROR "${bad} of ${count} files are not formatted as .clang-format says; run "
                    "clang-format -i on:\n  ${names}")
