# Writes svi(1) with the svi just built: cmake -DSVI=<svi> -DOUT=<file> -P cmake/SviManPage.cmake
execute_process(COMMAND ${SVI} man OUTPUT_FILE ${OUT} RESULT_VARIABLE failed)
if(failed)
    file(REMOVE ${OUT})
    message(FATAL_ERROR "SviManPage.cmake: '${SVI} man' failed (${failed})")
endif()
