"""scan-gateway: PDFs and scans into recognised documents."""
