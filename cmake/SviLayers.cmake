# The layers and what each may include (docs/architecture.md). Run as a script before anything
# compiles (the target svi_layers, which every library depends on):
#   cmake -DSOURCE_DIR=<tree> -DSTAMP=<file> -P cmake/SviLayers.cmake
# It fails the build naming every #include "core/…", "ui/…" or "app/…" that runs against the
# layers, a layer including one above it or beside it; the link order of the libraries
# (core/CMakeLists.txt) enforces the same for calls. Tests may include anything.

# A layer: the folders it is made of.
set(svi_layer_base core/base core/math)
set(svi_layer_data core/data)
set(svi_layer_inference core/inference)
set(svi_layer_metrics core/metrics)
set(svi_layer_run core/run)
set(svi_layer_models core/models)
set(svi_layer_io core/io)
set(svi_layer_mpi core/mpi)
set(svi_layer_ui ui)
set(svi_layer_app app)
set(svi_layer_python python)
set(svi_layers base data inference metrics run models io mpi ui app python)

# What each layer may include besides itself.
set(svi_below_base)
set(svi_below_data base)
set(svi_below_inference base data)
set(svi_below_metrics base data)
set(svi_below_run base data)
set(svi_below_models base data inference metrics run)
set(svi_below_io base data inference metrics run models)
set(svi_below_mpi base)
set(svi_below_ui base data inference metrics run models io)
set(svi_below_app base data inference metrics run models io mpi ui)
set(svi_below_python base data inference metrics run models io)

# The layer of a path relative to the source folder ("core/models/lda/lda.h" → models), or "".
function(svi_layer_of path out)
    foreach(layer ${svi_layers})
        foreach(folder ${svi_layer_${layer}})
            string(LENGTH "${folder}/" n)
            string(SUBSTRING "${path}" 0 ${n} head)
            if(head STREQUAL "${folder}/")
                set(${out} ${layer} PARENT_SCOPE)
                return()
            endif()
        endforeach()
    endforeach()
    set(${out} "" PARENT_SCOPE)
endfunction()

if(NOT SOURCE_DIR)
    message(FATAL_ERROR "SviLayers.cmake: SOURCE_DIR not set")
endif()
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
    ${SOURCE_DIR}/core/*.cpp ${SOURCE_DIR}/core/*.h
    ${SOURCE_DIR}/ui/*.cpp ${SOURCE_DIR}/ui/*.h
    ${SOURCE_DIR}/app/*.cpp ${SOURCE_DIR}/app/*.h
    ${SOURCE_DIR}/python/*.cpp ${SOURCE_DIR}/python/*.h)
set(violations 0)
foreach(file ${files})
    svi_layer_of(${file} own)
    if(NOT own)
        continue()
    endif()
    file(STRINGS ${SOURCE_DIR}/${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line ${includes})
        string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" included "${line}")
        svi_layer_of(${included} theirs)
        if(NOT theirs OR theirs STREQUAL own)
            continue()
        endif()
        list(FIND svi_below_${own} ${theirs} allowed)
        if(allowed EQUAL -1)
            message(SEND_ERROR "${file}: #include \"${included}\": the ${own} layer may not "
                "include the ${theirs} layer (it may include: ${svi_below_${own}}; see "
                "docs/architecture.md)")
            math(EXPR violations "${violations} + 1")
        endif()
    endforeach()
endforeach()
if(violations GREATER 0)
    message(FATAL_ERROR "${violations} include(s) against the layers")
endif()
if(STAMP)
    file(TOUCH ${STAMP})
endif()
