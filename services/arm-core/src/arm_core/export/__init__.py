"""Recognised documents taken out of the app: XLSX for the analyst's spreadsheet (money as
numbers), CSV for other systems."""
