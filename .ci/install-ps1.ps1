# installers/install.ps1's checks on windows-latest (ci.yml, unit-and-build):
# with -Lint, PSScriptAnalyzer first (no warning or error; on the completion
# scripts of issue 42 too, which TabExpansion2 then completes with), then its Pester
# tests (test/windows/install-ps1.Tests.ps1). Run once under PowerShell 7 with
# -Lint, which also saves Pester 5 into RUNNER_TEMP, and once under Windows
# PowerShell 5.1 (which ships Pester 3) with that saved Pester.
# Windows only: PowerShell under Wine is a stub, so nothing else runs this.
param([switch]$Lint)
$ErrorActionPreference = 'Stop'
$pester = Join-Path $env:RUNNER_TEMP 'pester'

if ($Lint) {
  Install-Module PSScriptAnalyzer -Force -Scope CurrentUser
  $findings = @(Invoke-ScriptAnalyzer -Path installers/install.ps1 -Severity ParseError, Error, Warning)
  $findings | Format-List -Property RuleName, Severity, Line, Message | Out-String -Width 200 | Write-Output
  if ($findings.Count) { throw "PSScriptAnalyzer: $($findings.Count) finding(s) in installers/install.ps1" }
  $ownFindings = @(Invoke-ScriptAnalyzer -Path $PSCommandPath -Severity ParseError, Error, Warning)
  if ($ownFindings.Count) { throw "PSScriptAnalyzer: $($ownFindings.Count) finding(s) in $PSCommandPath" }
  # The completion scripts (issue 42), made from the sources by node, under the same rules; then PowerShell's own
  # completion (TabExpansion2) of a partial word through each, with a stand-in command on PATH for it to resolve.
  $completions = Join-Path $env:RUNNER_TEMP 'completions'
  node build/completion-scripts.mjs $completions
  if ($LASTEXITCODE) { throw "build/completion-scripts.mjs exited $LASTEXITCODE" }
  foreach ($script in @(Get-ChildItem -Path $completions -Filter '*.ps1')) {
    $scriptFindings = @(Invoke-ScriptAnalyzer -Path $script.FullName -Severity ParseError, Error, Warning)
    $scriptFindings | Format-List -Property RuleName, Severity, Line, Message | Out-String -Width 200 | Write-Output
    if ($scriptFindings.Count) { throw "PSScriptAnalyzer: $($scriptFindings.Count) finding(s) in $($script.Name)" }
    . $script.FullName
  }
  foreach ($name in 'gentle-shell-setup', 'gentle-shell') { Set-Content -Path (Join-Path $completions "$name.cmd") -Value '@echo off' }
  $env:Path = "$completions$([IO.Path]::PathSeparator)$env:Path"
  $expected = [ordered]@{
    'gentle-shell-setup ins' = 'install'
    'gentle-shell-setup install --dr' = '--dry-run'
    'gentle-shell-setup release s' = 'sign'
    'gentle-shell-setup completions f' = 'fish'
    'gentle-shell self' = 'self-uninstall'
    'gentle-shell memory migrate --c' = '--confirm-quiescent'
    'gentle-shell upgrade --to 1.2.3 --ro' = '--rollback'
  }
  foreach ($line in $expected.Keys) {
    $matched = @((TabExpansion2 -inputScript $line -cursorColumn $line.Length).CompletionMatches | ForEach-Object { $_.CompletionText })
    if (($matched -join ' ') -ne $expected[$line]) { throw "completion of '$line' gave '$($matched -join ' ')', not '$($expected[$line])'" }
  }
  Save-Module -Name Pester -MinimumVersion 5.5.0 -Path $pester -Force
}

$env:PSModulePath = "$pester$([IO.Path]::PathSeparator)$env:PSModulePath"
Import-Module Pester -MinimumVersion 5.5.0
$config = New-PesterConfiguration
$config.Run.Path = 'test/windows/install-ps1.Tests.ps1'
$config.Run.Exit = $true
$config.Output.Verbosity = 'Detailed'
Invoke-Pester -Configuration $config
