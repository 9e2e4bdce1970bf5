// Runner: runs submitted jobs on its own small thread pool and reports only the newest one.
//
// Every submit() gets a new generation number and cancels the job before it (a cancelled job
// that has not started is skipped; a running one sees JobContext::cancelled() turn true and
// should return early). A new job starts at once even while a stale one is still inside a long
// simulator call that cannot be interrupted; the stale result is dropped when it arrives.
// Results come back on the Runner's (GUI) thread through signals: the event loop never waits.
#pragma once

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QVariant>

#include <atomic>
#include <functional>
#include <memory>

#include "core/result.hpp"

namespace tilescope::gui {

struct JobContext {
    std::function<bool()> cancelled;                  // true once a newer job or cancel() came
    std::function<void(int done, int total)> progress;  // thread-safe; posts to the GUI thread
};
using Job = std::function<Result<QVariant>(const JobContext&)>;

class Runner : public QObject {
    Q_OBJECT
public:
    // max_threads: 1 for work that must not overlap (GPU measurements).
    explicit Runner(const QString& name, QObject* parent = nullptr, int max_threads = 4);
    ~Runner() override;
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;

    quint64 submit(Job job);
    void cancel();
    quint64 generation() const { return generation_; }
    bool busy() const { return busy_; }

signals:
    void finished(quint64 generation, const QVariant& result);
    void failed(quint64 generation, const QString& message);
    void progress(quint64 generation, int done, int total);
    void cancelled(quint64 generation);
    void busyChanged(bool busy);

private:
    void setBusy(bool busy);

    QThreadPool pool_;
    quint64 generation_ = 0;
    std::shared_ptr<std::atomic<bool>> current_cancel_;
    bool busy_ = false;
};

}  // namespace tilescope::gui
