// Connects an omnibox to a timeline: a chosen match is revealed and selected there,
// and the matches become ticks under the ruler. Kept apart from both widgets so
// the box knows nothing of tracks and the timeline nothing of searching.
#pragma once

namespace fathom::gui {

class SearchBox;
class TimelineView;

void linkSearchToTimeline(SearchBox* box, TimelineView* timeline);

}  // namespace fathom::gui
