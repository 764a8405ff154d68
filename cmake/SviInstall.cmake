# What `cmake --install` puts where, and the Debian package CPack builds from it (cpack -G DEB in
# the build folder; README): svi, svi-plot and svi-workbench; the Python module; a desktop entry
# with its icon; svi(1), written by the svi just built from the declarations.
include(GNUInstallDirs)

install(TARGETS svi svi-plot svi-workbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/resources/svi-workbench.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/svi-workbench.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)

set(SVI_MAN_PAGE ${CMAKE_BINARY_DIR}/man/svi.1)
add_custom_command(OUTPUT ${SVI_MAN_PAGE}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${CMAKE_COMMAND} -DSVI=$<TARGET_FILE:svi> -DOUT=${SVI_MAN_PAGE}
            -P ${PROJECT_SOURCE_DIR}/cmake/SviManPage.cmake
    DEPENDS svi ${PROJECT_SOURCE_DIR}/cmake/SviManPage.cmake
    COMMENT "Writing svi(1)"
    VERBATIM)
add_custom_target(svi_man_page ALL DEPENDS ${SVI_MAN_PAGE})
install(FILES ${SVI_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The Python package, under SVI_PYTHON_INSTALL_DIR of the prefix: by default Debian's folder of
# its python3's packages (/usr/lib/python3/dist-packages, on sys.path for the package's prefix
# /usr); under another prefix, PYTHONPATH=<prefix>/lib/python3/dist-packages (docs/python.md).
if(SVI_WITH_PYTHON)
    set(SVI_PYTHON_INSTALL_DIR "lib/python3/dist-packages"
        CACHE STRING "Where the Python package svi is installed, relative to the prefix")
    install(TARGETS svi_python_extension LIBRARY DESTINATION ${SVI_PYTHON_INSTALL_DIR}/svi)
    file(GLOB svi_python_package CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/svi/*.py)
    install(FILES ${svi_python_package} DESTINATION ${SVI_PYTHON_INSTALL_DIR}/svi)
endif()

# The Debian package: its libraries' packages found by dpkg-shlibdeps (Qt 6, Open MPI, OpenMP,
# zlib), the interpreter the module was built for and numpy named here.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME svi-workbench)
set(CPACK_PACKAGE_VENDOR "SVI Workbench")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "stochastic variational inference workbench: a window, the svi command and a Python module")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "Fits Bayesian models (beta process factor analysis, LDA, HDP, correlated topic models, "
    "Poisson factorization, GLMs, sparse GPs, edge partition models) to images, cytometry "
    "tables, corpora, ratings, labelled data and networks by stochastic variational inference, "
    "with live plots in a Qt window, headless runs from svi (also on MPI) and runs from Python.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "SVI Workbench developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
if(SVI_WITH_PYTHON)
    math(EXPR svi_python_next "${Python_VERSION_MINOR} + 1")
    set(CPACK_DEBIAN_PACKAGE_DEPENDS
        "python3 (>= ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}), python3 (<< ${Python_VERSION_MAJOR}.${svi_python_next}), python3-numpy")
    set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-scipy, python3-pandas, openmpi-bin")
else()
    set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openmpi-bin")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-image-formats-plugins")
include(CPack)
