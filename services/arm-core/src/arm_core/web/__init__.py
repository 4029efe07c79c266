"""The analysts' web UI: server-rendered Russian pages with htmx and live file statuses, a
module per screen (consolidations, files, documents, review, audit trail). Pages read and
change through the same query, retry, review and export functions as the JSON API; the
browser calls the API itself only for uploads (which need per-file progress) and downloads.

Kept free of imports so that the runtime can use ``arm_core.web.events`` without pulling in
the pages (which depend on the runtime in turn).
"""
