// Value snapshots carried through QVariant from worker threads to the GUI thread.
#pragma once

#include <QMetaType>

#include "core/prediction.hpp"
#include "gui/models/compare.hpp"
#include "gui/models/prediction_service.hpp"
#include "gui/models/tile_map.hpp"

Q_DECLARE_METATYPE(tilescope::gui::SnapshotPtr)
Q_DECLARE_METATYPE(tilescope::gui::Comparison)
Q_DECLARE_METATYPE(tilescope::gui::TileMap)
Q_DECLARE_METATYPE(tilescope::Prediction)
