# Precompiled headers (SVI_PCH). Most sources parse the same system headers (the standard
# library, Eigen, and for core/io, ui and the tests Qt); parsing them once per target instead of
# once per source is a large share of a clean build. Only system headers are listed: a project
# header here would rebuild every source of the target whenever it changed.
#
# A precompiled header is used only by a source compiled with the same definitions as far as the
# header reads them (QtTest, for one, includes its Gui and Widgets parts when QT_GUI_LIB or
# QT_WIDGETS_LIB is defined), else GCC parses the headers again and -Winvalid-pch, which CMake
# adds, says so in the build log. Hence one list per kind of target.

set(SVI_PCH_STD
    <algorithm> <cmath> <cstdint> <functional> <limits> <map> <memory> <numeric> <optional>
    <stdexcept> <string> <vector>)
# The layers below svi_io and what builds on them: no Qt.
set(SVI_PCH_CORE ${SVI_PCH_STD} <Eigen/Core> <Eigen/Cholesky>)
# svi_io (core/io): QtCore and QtGui.
set(SVI_PCH_IO ${SVI_PCH_CORE}
    <QByteArray> <QDir> <QFile> <QFileInfo> <QImage> <QJsonArray> <QJsonDocument> <QJsonObject>
    <QString> <QStringList>)
# svi_ui and the executables on it: Qt Widgets.
set(SVI_PCH_UI ${SVI_PCH_IO}
    <QApplication> <QComboBox> <QHBoxLayout> <QLabel> <QMouseEvent> <QPainter> <QPushButton>
    <QTimer> <QVBoxLayout> <QWidget>)

# svi_precompile_headers(TARGET HEADER...): precompile HEADERs for TARGET when SVI_PCH is ON.
function(svi_precompile_headers target)
    if(SVI_PCH)
        target_precompile_headers(${target} PRIVATE ${ARGN})
    endif()
endfunction()

# svi_reuse_precompiled_headers(TARGET FROM): TARGET uses FROM's precompiled header (same flags).
function(svi_reuse_precompiled_headers target from)
    if(SVI_PCH)
        target_precompile_headers(${target} REUSE_FROM ${from})
    endif()
endfunction()
