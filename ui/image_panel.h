#pragma once
// Image panels: a titled, zoomable view of a grey image with a caption (PSNR), and a strip of
// such panels whose zoom and pan move together (original | corrupted | one per run).
// GUI thread only.

#include <Eigen/Core>
#include <QFrame>
#include <QGraphicsView>
#include <QImage>
#include <QMap>

class QGraphicsPixmapItem;
class QGridLayout;
class QLabel;

namespace svi::ui {

// 8-bit grey image of `values` (0–255 scale, rows = height), rounded and clamped.
QImage toGrayImage(const Eigen::ArrayXXf& values);
// The error view: |estimate − reference| × gain, clamped, as a grey image (black = exact).
QImage differenceImage(const Eigen::ArrayXXf& estimate, const Eigen::ArrayXXf& reference,
                       float gain = 4.0f);

class ZoomView : public QGraphicsView
{
    Q_OBJECT
public:
    explicit ZoomView(QWidget* parent = nullptr);
    void setImage(const QImage& image);
    QImage image() const { return m_image; }
    double zoom() const { return transform().m11(); }
    void setZoom(double factor);
    // Scene point at the centre of the viewport.
    QPointF viewCentre() const;

signals:
    void viewChanged();
    void zoomedByUser();

protected:
    void wheelEvent(QWheelEvent* event) override;

private:
    QGraphicsPixmapItem* m_item = nullptr;
    QImage m_image;
};

class ImagePanel : public QFrame
{
    Q_OBJECT
public:
    explicit ImagePanel(const QString& title, QWidget* parent = nullptr);
    void setTitle(const QString& title);
    QString title() const;
    void setImage(const QImage& image);
    QImage image() const { return m_view->image(); }
    void setCaption(const QString& caption);
    QString caption() const;
    ZoomView* view() const { return m_view; }

private:
    QLabel* m_title = nullptr;
    ZoomView* m_view = nullptr;
    QLabel* m_caption = nullptr;
};

class ImageStrip : public QWidget
{
    Q_OBJECT
public:
    explicit ImageStrip(QWidget* parent = nullptr);
    // Adds a panel under `key` (kept in insertion order), or returns the existing one.
    ImagePanel* panel(const QString& key, const QString& title);
    ImagePanel* find(const QString& key) const { return m_panels.value(key, nullptr); }
    void remove(const QString& key);
    QStringList keys() const { return m_order; }
    int columns() const { return m_columns; }

public slots:
    void zoomIn();
    void zoomOut();
    void zoomToFit();
    void zoomActualSize();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void relayout();
    void syncFrom(ZoomView* source);

    QGridLayout* m_grid = nullptr;
    QMap<QString, ImagePanel*> m_panels;
    QStringList m_order;
    int m_columns = 3;
    bool m_syncing = false;
    bool m_fitted = true; // until the user zooms, the images follow the panels' size
};

} // namespace svi::ui
