#include "ui/image_panel.h"

#include <QGraphicsPixmapItem>
#include <QGridLayout>
#include <QLabel>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace svi::ui {

QImage toGrayImage(const Eigen::ArrayXXf& values)
{
    QImage img(int(values.cols()), int(values.rows()), QImage::Format_Grayscale8);
    for (int r = 0; r < img.height(); ++r) {
        uchar* line = img.scanLine(r);
        for (int c = 0; c < img.width(); ++c) {
            const float v = values(r, c);
            line[c] = uchar(std::isfinite(v) ? std::clamp(std::lround(v), 0L, 255L) : 0);
        }
    }
    return img;
}

QImage differenceImage(const Eigen::ArrayXXf& estimate, const Eigen::ArrayXXf& reference,
                       float gain)
{
    if (estimate.rows() != reference.rows() || estimate.cols() != reference.cols())
        return {};
    return toGrayImage((estimate - reference).abs() * gain);
}

ZoomView::ZoomView(QWidget* parent) : QGraphicsView(parent)
{
    setScene(new QGraphicsScene(this));
    m_item = scene()->addPixmap(QPixmap());
    m_item->setTransformationMode(Qt::FastTransformation); // pixels stay pixels when zoomed
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setBackgroundBrush(QColor(60, 60, 60));
    setMinimumSize(120, 120);
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, &ZoomView::viewChanged);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &ZoomView::viewChanged);
}

void ZoomView::setImage(const QImage& image)
{
    const bool sizeChanged = image.size() != m_image.size();
    m_image = image;
    m_item->setPixmap(QPixmap::fromImage(image));
    if (sizeChanged)
        scene()->setSceneRect(QRectF(QPointF(0, 0), QSizeF(image.size())));
}

void ZoomView::setZoom(double factor)
{
    factor = std::clamp(factor, 0.05, 64.0);
    setTransform(QTransform::fromScale(factor, factor));
    emit viewChanged();
}

QPointF ZoomView::viewCentre() const
{
    return mapToScene(viewport()->rect().center());
}

void ZoomView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0)
        return;
    setZoom(zoom() * std::pow(1.25, steps));
    emit zoomedByUser();
    event->accept();
}

ImagePanel::ImagePanel(const QString& title, QWidget* parent) : QFrame(parent)
{
    setFrameShape(QFrame::StyledPanel);
    m_title = new QLabel(title);
    m_title->setAlignment(Qt::AlignCenter);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_view = new ZoomView;
    m_caption = new QLabel;
    m_caption->setAlignment(Qt::AlignCenter);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Long captions wrap instead of widening the panel (and the window) past the screen.
    m_caption->setWordWrap(true);
    m_caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_caption->setMinimumHeight(2 * m_caption->fontMetrics().lineSpacing()); // room to wrap
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(3, 3, 3, 3);
    layout->setSpacing(2);
    layout->addWidget(m_title);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_caption);
}

void ImagePanel::setTitle(const QString& title)
{
    m_title->setText(title);
}
QString ImagePanel::title() const
{
    return m_title->text();
}
void ImagePanel::setImage(const QImage& image)
{
    m_view->setImage(image);
}
void ImagePanel::setCaption(const QString& caption)
{
    m_caption->setText(caption);
}
QString ImagePanel::caption() const
{
    return m_caption->text();
}

ImageStrip::ImageStrip(QWidget* parent) : QWidget(parent)
{
    m_grid = new QGridLayout(this);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(4);
}

ImagePanel* ImageStrip::panel(const QString& key, const QString& title)
{
    if (ImagePanel* p = m_panels.value(key, nullptr))
        return p;
    auto* p = new ImagePanel(title, this);
    p->setObjectName("panel:" + key);
    m_panels.insert(key, p);
    m_order << key;
    ZoomView* v = p->view();
    connect(v, &ZoomView::viewChanged, this, [this, v] {
        if (!m_syncing)
            syncFrom(v);
    });
    connect(v, &ZoomView::zoomedByUser, this, [this] { m_fitted = false; });
    // A new panel takes the zoom and position of the others.
    if (m_order.size() > 1) {
        ZoomView* first = m_panels.value(m_order.front())->view();
        m_syncing = true;
        v->setZoom(first->zoom());
        v->centerOn(first->viewCentre());
        m_syncing = false;
    }
    relayout();
    if (m_fitted) // once the layout has given the new panel its size
        QTimer::singleShot(0, this, [this] {
            if (m_fitted)
                zoomToFit();
        });
    return p;
}

void ImageStrip::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (m_fitted)
        zoomToFit();
}

void ImageStrip::remove(const QString& key)
{
    ImagePanel* p = m_panels.take(key);
    if (!p)
        return;
    m_order.removeAll(key);
    p->deleteLater();
    relayout();
}

void ImageStrip::relayout()
{
    for (ImagePanel* p : m_panels)
        m_grid->removeWidget(p);
    const int n = int(m_order.size());
    m_columns = n <= 3 ? std::max(n, 1) : n <= 8 ? (n + 1) / 2 : (n + 2) / 3;
    for (int i = 0; i < n; ++i)
        m_grid->addWidget(m_panels.value(m_order[i]), i / m_columns, i % m_columns);
    for (int c = 0; c < m_columns; ++c)
        m_grid->setColumnStretch(c, 1);
}

void ImageStrip::syncFrom(ZoomView* source)
{
    m_syncing = true;
    const double z = source->zoom();
    const QPointF centre = source->viewCentre();
    for (ImagePanel* p : m_panels) {
        ZoomView* v = p->view();
        if (v == source)
            continue;
        if (v->zoom() != z)
            v->setTransform(QTransform::fromScale(z, z));
        v->centerOn(centre);
    }
    m_syncing = false;
}

void ImageStrip::zoomIn()
{
    m_fitted = false;
    if (!m_order.isEmpty())
        m_panels.value(m_order.front())
            ->view()
            ->setZoom(m_panels.value(m_order.front())->view()->zoom() * 1.25);
}

void ImageStrip::zoomOut()
{
    m_fitted = false;
    if (!m_order.isEmpty())
        m_panels.value(m_order.front())
            ->view()
            ->setZoom(m_panels.value(m_order.front())->view()->zoom() / 1.25);
}

void ImageStrip::zoomActualSize()
{
    m_fitted = false;
    if (!m_order.isEmpty())
        m_panels.value(m_order.front())->view()->setZoom(1.0);
}

void ImageStrip::zoomToFit()
{
    if (m_order.isEmpty())
        return;
    ZoomView* v = m_panels.value(m_order.front())->view();
    v->fitInView(v->sceneRect(), Qt::KeepAspectRatio);
    syncFrom(v);
    m_fitted = true;
}

} // namespace svi::ui
