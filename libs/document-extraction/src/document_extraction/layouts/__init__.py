"""The kinds of document a grid may hold, one package each behind ``protocol.Layout``, tried in
the order of ``registry.LAYOUTS``."""
