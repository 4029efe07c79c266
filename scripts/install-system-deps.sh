#!/usr/bin/env bash
# Debian packages the system needs at run and test time; installs only what is missing.
set -euo pipefail

packages=()
# Tesseract with Russian and English data for the scan gateway; Chromium drives the UI tests;
# DejaVu gives the rendered test scans and PDFs Cyrillic glyphs; LibreOffice Calc with
# Carlito (Calibri metrics) and Liberation fonts prints workbooks to PDF as analysts do.
needed=(tesseract-ocr tesseract-ocr-rus tesseract-ocr-eng chromium fonts-dejavu-core
  libreoffice-calc-nogui fonts-crosextra-carlito fonts-liberation2)
for pkg in "${needed[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || packages+=("$pkg")
done
if [ ${#packages[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  sudo=sudo
else
  sudo=
fi
echo "installing: ${packages[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${packages[@]}"
