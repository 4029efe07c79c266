"""Files: intake of uploads, consolidations, manual retry of recognition."""
