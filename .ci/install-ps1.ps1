# installers/install.ps1's checks on windows-latest (ci.yml, unit-and-build):
# with -Lint, PSScriptAnalyzer first (no warning or error), then its Pester
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
  Save-Module -Name Pester -MinimumVersion 5.5.0 -Path $pester -Force
}

$env:PSModulePath = "$pester$([IO.Path]::PathSeparator)$env:PSModulePath"
Import-Module Pester -MinimumVersion 5.5.0
$config = New-PesterConfiguration
$config.Run.Path = 'test/windows/install-ps1.Tests.ps1'
$config.Run.Exit = $true
$config.Output.Verbosity = 'Detailed'
Invoke-Pester -Configuration $config
