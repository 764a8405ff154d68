#include "ui/recommendations_view.h"

#include "core/io/run_files.h"
#include "core/metrics/ranking_metrics.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <numeric>
#include <optional>

namespace svi::ui {
namespace {

QTableView* makeTable(QStandardItemModel* model, const char* name)
{
    auto* view = new QTableView;
    view->setObjectName(name);
    view->setModel(model);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    return view;
}

} // namespace

// The user picker: its value is the user's row, its text the id the ratings file gives them (as
// the exported lists and the data panel name them), so that "User 196" is user 196 of u.data.
// Stepping goes to the next row, the next id; typing an id picks that user. Rows without ids
// (data made in memory) show their row number, as the exports do.
class UserIdBox : public QSpinBox
{
public:
    void setIds(const std::vector<std::int64_t>* ids, std::int64_t rows)
    {
        m_ids = ids;
        setRange(0, int(std::max<std::int64_t>(rows - 1, 0)));
    }
    std::int64_t idOf(int row) const
    {
        return m_ids && std::size_t(row) < m_ids->size() ? (*m_ids)[std::size_t(row)] : row;
    }

protected:
    QString textFromValue(int row) const override { return QString::number(idOf(row)); }
    int valueFromText(const QString& text) const override
    {
        return rowOf(text.toLongLong()).value_or(value());
    }
    QValidator::State validate(QString& text, int&) const override
    {
        bool number = false;
        const qlonglong id = text.toLongLong(&number);
        if (text.isEmpty() || (number && !rowOf(id)))
            return QValidator::Intermediate; // on the way to an id
        return number ? QValidator::Acceptable : QValidator::Invalid;
    }

private:
    // The row of the user with file id `id`; none when no user has it.
    std::optional<int> rowOf(std::int64_t id) const
    {
        if (!m_ids || m_ids->empty())
            return id >= minimum() && id <= maximum() ? std::optional<int>(int(id)) : std::nullopt;
        const auto it = std::lower_bound(m_ids->begin(), m_ids->end(), id); // ids ascend
        if (it == m_ids->end() || *it != id || it - m_ids->begin() > maximum())
            return std::nullopt;
        return int(it - m_ids->begin());
    }

    const std::vector<std::int64_t>* m_ids = nullptr; // the data's rowIds, kept by the view
};

namespace {

void setRow(QStandardItemModel* m, int row, const QStringList& cells, bool bold = false)
{
    for (int c = 0; c < cells.size(); ++c) {
        QStandardItem* item = m->item(row, c);
        if (!item) {
            item = new QStandardItem;
            m->setItem(row, c, item);
        }
        item->setText(cells[c]);
        QFont f = item->font();
        f.setBold(bold);
        item->setFont(f);
        item->setTextAlignment((c == 1 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    }
}

} // namespace

RecommendationsView::RecommendationsView(QWidget* parent)
    : QWidget(parent), m_recommended(new QStandardItemModel(this)),
      m_rated(new QStandardItemModel(this))
{
    m_title =
        new QLabel(tr("Recommendations of the selected run appear here once it has started."));
    m_title->setObjectName("recommendationsTitle");
    m_user = new UserIdBox;
    m_user->setObjectName("recommendUser");
    m_user->setRange(0, 0);
    m_user->setToolTip(tr("The user whose list is shown, by the id the ratings file gives them"));
    m_n = new QSpinBox;
    m_n->setObjectName("recommendCount");
    m_n->setRange(1, 500);
    m_n->setValue(20);
    m_n->setPrefix(tr("top "));
    m_userInfo = new QLabel;
    m_userInfo->setObjectName("recommendUserInfo");
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("User")));
    bar->addWidget(m_user);
    bar->addWidget(m_n);
    bar->addWidget(m_userInfo, 1);

    m_recommended->setHorizontalHeaderLabels(
        {tr("Rank"), tr("Recommended (not rated in training)"), tr("Score"), tr("Held out")});
    m_rated->setHorizontalHeaderLabels({tr("Rating"), tr("Rated in training")});
    m_recommendedView = makeTable(m_recommended, "recommendedTable");
    m_ratedView = makeTable(m_rated, "ratedTable");
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_recommendedView);
    split->addWidget(m_ratedView);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    connect(m_user, &QSpinBox::valueChanged, this, &RecommendationsView::refresh);
    connect(m_n, &QSpinBox::valueChanged, this, &RecommendationsView::refresh);
}

void RecommendationsView::setData(CountDataPtr data)
{
    m_data = std::move(data);
    m_factors.reset();
    const QSignalBlocker block(m_user);
    m_user->setIds(m_data ? &m_data->rowIds : nullptr, m_data ? m_data->rows() : 0);
    m_user->setValue(0);
    refresh();
}

void RecommendationsView::setFactors(std::shared_ptr<const RatingFactors> factors)
{
    m_factors = std::move(factors);
    refresh();
}

void RecommendationsView::setTitle(const QString& title)
{
    m_title->setText(title);
}

void RecommendationsView::clear()
{
    m_factors.reset();
    refresh();
}

void RecommendationsView::setUser(std::int64_t u)
{
    m_user->setValue(int(u));
}

std::int64_t RecommendationsView::user() const
{
    return m_user->value();
}

std::int64_t RecommendationsView::userId() const
{
    return m_user->idOf(m_user->value());
}

int RecommendationsView::count() const
{
    return m_n->value();
}

QString RecommendationsView::itemTitle(std::int32_t item) const
{
    if (m_data && std::size_t(item) < m_data->columnNames.size())
        return QString::fromStdString(m_data->columnNames[std::size_t(item)]);
    return QString::number(item);
}

void RecommendationsView::refresh()
{
    m_list.clear();
    const std::int64_t u = m_user->value();
    const bool haveUser = m_data && u < m_data->rows();
    // What the user rated in training, highest rating first (then by title).
    if (haveUser) {
        const auto cols = m_data->train.rowCols(u);
        const auto ys = m_data->train.rowCounts(u);
        std::vector<std::size_t> order(cols.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return ys[a] > ys[b]; });
        m_rated->setRowCount(int(order.size()));
        for (int r = 0; r < int(order.size()); ++r)
            setRow(m_rated, r,
                   {QString::number(ys[order[std::size_t(r)]]),
                    itemTitle(cols[order[std::size_t(r)]])});
        m_userInfo->setText(tr("%n rating(s) in training", "", int(cols.size())) +
                            tr(", %n held out", "", int(m_data->heldOut.rowNonZeros(u))));
    } else {
        m_rated->setRowCount(0);
        m_userInfo->clear();
    }
    if (!haveUser || !m_factors || m_factors->users.rows() != m_data->rows() ||
        m_factors->items.rows() != m_data->cols()) {
        m_recommended->setRowCount(0);
        return;
    }
    m_list = recommendations(*m_factors, *m_data, u, m_n->value());
    const auto test = m_data->heldOut.rowCols(u);
    m_recommended->setRowCount(int(m_list.size()));
    for (int r = 0; r < int(m_list.size()); ++r) {
        const std::int32_t i = m_list[std::size_t(r)];
        const double score =
            m_factors->offset + double(m_factors->users.row(u).dot(m_factors->items.row(i)));
        const bool hit = std::binary_search(test.begin(), test.end(), i);
        setRow(m_recommended, r,
               {QString::number(r + 1), itemTitle(i), QString::number(score, 'f', 3),
                hit ? tr("✓") : QString()},
               hit);
    }
}

QStringList RecommendationsView::recommendedTitles() const
{
    QStringList out;
    for (std::int32_t i : m_list)
        out << itemTitle(i);
    return out;
}

QStringList RecommendationsView::ratedTitles() const
{
    QStringList out;
    for (int r = 0; r < m_rated->rowCount(); ++r)
        out << m_rated->item(r, 1)->text();
    return out;
}

int RecommendationsView::heldOutHits() const
{
    if (!m_data)
        return 0;
    const auto test = m_data->heldOut.rowCols(m_user->value());
    return int(std::count_if(m_list.begin(), m_list.end(), [&](std::int32_t i) {
        return std::binary_search(test.begin(), test.end(), i);
    }));
}

QByteArray RecommendationsView::csv() const
{
    if (!m_data || !m_factors || m_list.empty())
        return "user_id,rank,item_id,title,score,held_out\n";
    return recommendationsCsv(*m_factors, *m_data, {m_user->value()}, m_n->value());
}

} // namespace svi::ui
