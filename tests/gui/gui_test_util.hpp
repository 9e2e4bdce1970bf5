// Helpers shared by the GUI view and screenshot tests.
#pragma once

#include <QString>

#include "gui/models/prediction_service.hpp"

namespace tilescope::gui {
class MainWindow;
class Runner;
}

namespace gui_test {

// Waits until `runner` is idle (its newest job reported); false on timeout.
bool wait_idle(tilescope::gui::Runner* runner, int timeout_ms = 120000);
// Waits for the window's prediction for the panel's current request.
bool wait_prediction(tilescope::gui::MainWindow& window, int timeout_ms = 120000);
// Path of the built CLI (empty when not built).
QString cli_path();

}  // namespace gui_test
