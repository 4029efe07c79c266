"""An analyst's review of a recognised document: corrections as a layer over what was
recognised, the checks re-run on the corrected values, and confirmation."""
