// BusyIndicator: the window's background work and the runs' speed, in the status bar.

#include "ui/busy_indicator.h"

#include "ui/elided_label.h"
#include "ui/run_manager.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>
#include <cmath>

namespace svi::ui {

BusyIndicator::BusyIndicator(RunManager* runs, QStatusBar* bar, QObject* parent)
    : QObject(parent), m_runs(runs)
{
    m_label = new QLabel;
    m_progress = new QProgressBar;
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(140);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName("busyCancel");
    connect(m_cancel, &QPushButton::clicked, this, &BusyIndicator::cancel);
    bar->addWidget(m_label);
    bar->addWidget(m_progress);
    bar->addWidget(m_cancel);
    show(false);
    m_message = new ElidedLabel;
    m_message->setObjectName("statusMessage");
    bar->addWidget(m_message, 1);
    m_messageTimer = new QTimer(this);
    m_messageTimer->setSingleShot(true);
    connect(m_messageTimer, &QTimer::timeout, m_message, &ElidedLabel::clear);
    m_speed = new QLabel;
    m_speed->setObjectName("speedLabel");
    bar->addPermanentWidget(m_speed);
    m_progress->setObjectName("busyProgress");
    m_loadTimer = new QTimer(this);
    m_loadTimer->setInterval(100);
    connect(m_loadTimer, &QTimer::timeout, this, [this] {
        if (m_load && m_load->total() > 0) {
            m_progress->setRange(0, 1000);
            m_progress->setValue(int(std::lround(1000 * m_load->fraction())));
        }
    });
}

void BusyIndicator::show(bool on)
{
    m_label->setVisible(on);
    m_progress->setVisible(on);
    m_cancel->setVisible(on);
}

int BusyIndicator::start(const QString& text, std::shared_ptr<LoadControl> load)
{
    m_shown = ++m_generation;
    m_label->setText(text);
    m_load = std::move(load);
    m_progress->setRange(0, 0); // indeterminate until the load knows its total
    if (m_load)
        m_loadTimer->start();
    else
        m_loadTimer->stop();
    show(true);
    return m_generation;
}

void BusyIndicator::finish(int generation)
{
    if (generation != m_shown)
        return;
    m_shown = -1;
    m_load.reset();
    m_loadTimer->stop();
    m_progress->setRange(0, 0);
    show(false);
    refresh();
}

void BusyIndicator::refresh()
{
    int running = 0;
    double speed = 0;
    m_fullPassRun = 0;
    for (int id : m_runs->ids()) {
        const RunRecord* r = m_runs->record(id);
        if (r->status == RunStatus::Running || r->status == RunStatus::Stopping) {
            ++running;
            if (std::isfinite(r->stepsPerSecond()))
                speed += r->stepsPerSecond();
            if (r->phase == RunPhase::FullEvaluation && !m_fullPassRun)
                m_fullPassRun = id;
        }
    }
    m_speed->setText(running ? tr("%n run(s) going · %1 steps/s", "", running).arg(speed, 0, 'f', 1)
                             : tr("idle"));
    // The window's own work first, else a full pass under way (Cancel skips it).
    if (m_shown >= 0)
        return;
    if (m_fullPassRun)
        m_label->setText(tr("Full pass of %1…").arg(m_runs->record(m_fullPassRun)->label));
    show(m_fullPassRun != 0);
}

void BusyIndicator::showMessage(const QString& text, int timeoutMs)
{
    m_message->setText(text);
    if (timeoutMs > 0)
        m_messageTimer->start(timeoutMs);
    else
        m_messageTimer->stop();
}

QString BusyIndicator::message() const
{
    return m_message->text();
}

void BusyIndicator::cancel()
{
    if (m_shown >= 0) {
        if (m_load)
            m_load->cancel(); // the reader stops at its next block
        ++m_generation;
        finish(m_shown);
        emit cancelled();
        showMessage(tr("Cancelled"), 4000);
        return;
    }
    if (m_fullPassRun)
        m_runs->abort(m_fullPassRun);
}

} // namespace svi::ui
