#!/bin/sh
# gentle-pi TEST FIXTURE build script (the package's only one): writes bin/gentle-ai.
set -eu
mkdir -p bin
cp scripts/gentle-ai.sh bin/gentle-ai.tmp
chmod 755 bin/gentle-ai.tmp
mv bin/gentle-ai.tmp bin/gentle-ai
