"""The analysts' web UI: server-rendered Russian pages with htmx and live file statuses.

Kept free of imports so that the runtime can use ``arm_core.web.events`` without pulling in
the pages (which depend on the runtime in turn).
"""
