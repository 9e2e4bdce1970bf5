#include "gui/models/runner.hpp"

#include <QMetaObject>
#include <QPointer>

#include <exception>
#include <string>
#include <utility>

namespace tilescope::gui {

Runner::Runner(const QString& name, QObject* parent, int max_threads) : QObject(parent) {
    setObjectName(name);
    // A few threads: the newest job never queues behind stale ones still finishing.
    pool_.setMaxThreadCount(max_threads < 1 ? 1 : max_threads);
}

Runner::~Runner() {
    if (current_cancel_) current_cancel_->store(true);
    pool_.clear();        // drop jobs that have not started
    pool_.waitForDone();  // running jobs finish; their results are dropped (QPointer is null)
}

void Runner::setBusy(bool busy) {
    if (busy_ == busy) return;
    busy_ = busy;
    emit busyChanged(busy_);
}

quint64 Runner::submit(Job job) {
    if (current_cancel_) current_cancel_->store(true);
    auto cancel_flag = std::make_shared<std::atomic<bool>>(false);
    current_cancel_ = cancel_flag;
    const quint64 gen = ++generation_;
    setBusy(true);

    QPointer<Runner> self(this);
    pool_.start([self, gen, cancel_flag, job = std::move(job)]() {
        // Runs on a pool thread. Results are posted back to the Runner's thread; the Runner
        // outlives its pool's jobs (~Runner waits for them), so `self` is valid here.
        auto post = [self](std::function<void(Runner&)> fn) {
            if (!self) return;
            QMetaObject::invokeMethod(self.data(), [self, fn = std::move(fn)]() {
                if (self) fn(*self);
            });
        };
        if (cancel_flag->load()) {
            post([gen](Runner& r) {
                if (gen != r.generation_) return;  // superseded: the newer job reports
                r.setBusy(false);
                emit r.cancelled(gen);
            });
            return;
        }
        JobContext ctx;
        ctx.cancelled = [cancel_flag]() { return cancel_flag->load(); };
        ctx.progress = [post, gen](int done, int total) {
            post([gen, done, total](Runner& r) {
                if (gen == r.generation_) emit r.progress(gen, done, total);
            });
        };
        Result<QVariant> result = make_error("internal error: job did not run");
        try {
            result = job(ctx);
        } catch (const std::exception& e) {
            result = make_error(std::string("internal error: ") + e.what());
        }
        const bool was_cancelled = cancel_flag->load();
        post([gen, was_cancelled, result = std::move(result)](Runner& r) {
            if (gen != r.generation_) return;  // stale: a newer request is on its way
            r.setBusy(false);
            if (was_cancelled) {
                emit r.cancelled(gen);
            } else if (result.ok()) {
                emit r.finished(gen, result.value());
            } else {
                emit r.failed(gen, QString::fromStdString(result.error().message));
            }
        });
    });
    return gen;
}

void Runner::cancel() {
    if (current_cancel_) current_cancel_->store(true);
}

}  // namespace tilescope::gui
