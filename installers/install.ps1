<#
.SYNOPSIS
gentle-shell-setup bootstrap for Windows (Windows PowerShell 5.1 and PowerShell 7).

.DESCRIPTION
Three ways to run it (each in a PowerShell window; the second from cmd.exe too):

  irm https://github.com/Gentleman-Programming/gentle-shell-setup/releases/latest/download/install.ps1 | iex
  powershell -ExecutionPolicy ByPass -c "irm https://github.com/Gentleman-Programming/gentle-shell-setup/releases/latest/download/install.ps1 | iex"
  & ([scriptblock]::Create((irm https://github.com/Gentleman-Programming/gentle-shell-setup/releases/latest/download/install.ps1))) -Yes -NoModifyPath

It downloads the gentle-shell-setup binary for this machine (win-x64 or
win-arm64, the real processor even under emulation) and the release's
SHA256SUMS into a fresh private temporary folder, checks the binary against
it, runs `gentle-shell-setup install` with your arguments, and removes the
folder. The binary then verifies the signed release manifest and every
runtime it downloads against the pins compiled into it. Like install.sh, this
script checks only SHA256SUMS (fetched over HTTPS from the same release as
the script itself): Windows PowerShell has no Ed25519 to check the signed
manifest with, and the binary checks it.

Every parameter has an environment variable, for `irm | iex`: GENTLE_SHELL_YES=1,
GENTLE_SHELL_NO_MODIFY_PATH=1, GENTLE_SHELL_RELEASE, GENTLE_SHELL_SETUP_DOWNLOAD;
a parameter wins over its variable. The release has the binary's names; the older
-Version and GENTLE_SHELL_VERSION are read after them. HTTPS_PROXY (or ALL_PROXY)
and NO_PROXY are honoured; credentials in a URL are never printed. It never exits
your PowerShell: a failure is thrown, with $LASTEXITCODE set (the binary's own
exit code when it ran).

The execution policy is not checked: `iex` is not governed by it.

.PARAMETER Yes
Install without asking (gentle-shell-setup install --yes).

.PARAMETER NoModifyPath
Leave the user Path alone and print what to add (--no-modify-path).

.PARAMETER Release
Install this exact Gentle Shell version (--release), or latest (alias -Version).

.PARAMETER DownloadUrl
The folder holding the binaries and SHA256SUMS (a mirror): https, or http on
the loopback address for tests.

.PARAMETER ArgumentList
Further arguments for gentle-shell-setup install, after `--`.
#>
# No positional parameter: `& $sb -Yes -- --source D:\m` gives both words after -- to ArgumentList.
[CmdletBinding(PositionalBinding = $false)]
param(
    [switch]$Yes,
    [switch]$NoModifyPath,
    [Alias('Version')][string]$Release,
    [string]$DownloadUrl,
    [Parameter(ValueFromRemainingArguments = $true)]
    [string[]]$ArgumentList
)

# ---- Pure parts (test/windows/install-ps1.Tests.ps1 dot-sources this file with
# $GentleShellInstallNoMain set, so that only these are defined).

function Hide-GentleShellSecret {
    # Text with every URL's `user:password@` and the values of credential-like query parameters replaced by ***, as src/core/secrets.ts does: the user
    # information runs to the LAST @ of the host part (which ends at the first /, ?, # or \ or the line's end), as the HTTP client reads it, so a
    # password holding @, a quote or a space is hidden whole; an @ followed by a space ends no user information. It may hide more than the secret, never less.
    param([string]$Text)
    if (-not $Text) { return $Text }
    $masked = [regex]::Replace($Text, '(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\\\r\n]*@(?=[^\s@/?#\\])', '${1}***@')
    $evaluator = [System.Text.RegularExpressions.MatchEvaluator] {
        param($found)
        $name = [Uri]::UnescapeDataString($found.Groups[2].Value)
        $secret = '^(.*token.*|.*auth.*|.*secret.*|.*password.*|.*passwd.*|sig|.*signature|key|.*api[-_]?key|.*access[-_]?key.*|.*credential.*)$'
        if ($found.Groups[3].Value -ne '' -and $name -match $secret) {
            return $found.Groups[1].Value + $found.Groups[2].Value + '=***'
        }
        return $found.Value
    }
    # A value runs to the next & or # (or white space), quotes included.
    return [regex]::Replace($masked, '([?&])([^=&#\s"''<>]+)=([^&#\s]*)', $evaluator)
}

function Split-GentleShellUrlCredential {
    # A URL without its `user:password@`, the two parts (percent-decoded), and the Basic authorization header they make.
    param([string]$Url)
    # The user information runs to the last @ before the host part ends (the first /, ?, # or \).
    $parts = [regex]::Match($Url, '^([a-zA-Z][a-zA-Z0-9+.-]*://)([^/?#\\]*)@([^/?#\\@]*(?:[/?#\\].*)?)$')
    if (-not $parts.Success) {
        return [pscustomobject]@{ Url = $Url; User = $null; Password = $null; Authorization = $null }
    }
    $pair = @($parts.Groups[2].Value -split ':', 2)
    $user = [Uri]::UnescapeDataString($pair[0])
    $password = if ($pair.Count -gt 1) { [Uri]::UnescapeDataString($pair[1]) } else { '' }
    $token = [Convert]::ToBase64String([Text.Encoding]::UTF8.GetBytes($user + ':' + $password))
    return [pscustomobject]@{ Url = $parts.Groups[1].Value + $parts.Groups[3].Value; User = $user; Password = $password; Authorization = 'Basic ' + $token }
}

function ConvertTo-GentleShellFlag {
    # An environment variable's value as on or off: 1/true/yes/on, 0/false/no/off or empty.
    param([string]$Name, [string]$Value)
    if ($null -eq $Value) { return $false }
    $text = $Value.Trim()
    if ($text -match '^(1|true|yes|on)$') { return $true }
    if ($text -match '^(0|false|no|off)?$') { return $false }
    throw "$Name must be 1 or 0, not '$Value'"
}

function Resolve-GentleShellOption {
    # The parameters and their environment variables (a parameter wins) as the download folder and the arguments for the binary.
    param(
        [switch]$Yes, [switch]$NoModifyPath, [Alias('Version')][string]$Release, [string]$DownloadUrl, [string[]]$ArgumentList, [hashtable]$Environment = @{},
        [string]$DefaultDownload = 'https://github.com/Gentleman-Programming/gentle-shell-setup/releases/latest/download'
    )
    $base = $DownloadUrl
    if (-not $base) { $base = $Environment['GENTLE_SHELL_SETUP_DOWNLOAD'] }
    if (-not $base) { $base = $DefaultDownload }
    $base = $base.TrimEnd('/')
    $bare = (Split-GentleShellUrlCredential -Url $base).Url
    $secure = $bare -match '^https://[^/?#\s]+(/|$)'
    $loopback = $bare -match '^http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]+)?(/|$)'
    if (-not ($secure -or $loopback)) {
        throw "the download folder (-DownloadUrl or GENTLE_SHELL_SETUP_DOWNLOAD) must be an https URL (got $(Hide-GentleShellSecret -Text $base))"
    }
    $on = [bool]$Yes
    if (-not $on) { $on = ConvertTo-GentleShellFlag -Name 'GENTLE_SHELL_YES' -Value $Environment['GENTLE_SHELL_YES'] }
    $skipPath = [bool]$NoModifyPath
    if (-not $skipPath) { $skipPath = ConvertTo-GentleShellFlag -Name 'GENTLE_SHELL_NO_MODIFY_PATH' -Value $Environment['GENTLE_SHELL_NO_MODIFY_PATH'] }
    $release = $Release
    if (-not $release) { $release = $Environment['GENTLE_SHELL_RELEASE'] }
    if (-not $release) { $release = $Environment['GENTLE_SHELL_VERSION'] }
    if ($release) {
        $release = $release.Trim()
        if ($release -notmatch '^(latest|[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?)$') {
            throw "the release (-Release or GENTLE_SHELL_RELEASE) must be an exact Gentle Shell version such as 4.1.0, or latest; not '$release'"
        }
    }
    $binaryArguments = New-Object -TypeName System.Collections.Generic.List[string]
    $binaryArguments.Add('install')
    if ($on) { $binaryArguments.Add('--yes') }
    if ($skipPath) { $binaryArguments.Add('--no-modify-path') }
    if ($release -and $release -ne 'latest') { $binaryArguments.Add('--release'); $binaryArguments.Add($release) }
    foreach ($item in @($ArgumentList)) { if ($null -ne $item) { $binaryArguments.Add([string]$item) } }
    return [pscustomobject]@{ DownloadUrl = $base; ShownDownloadUrl = (Hide-GentleShellSecret -Text $base); Argument = [string[]]$binaryArguments.ToArray() }
}

function Get-GentleShellArchitecture {
    # The binary for this machine. NativeMachine is IsWow64Process2's answer (0 when it is not available); then PROCESSOR_ARCHITEW6432, which a 32-bit
    # process sees, then PROCESSOR_ARCHITECTURE.
    param([string]$ProcessorArchitecture, [string]$ProcessorArchitectureWow, [int]$NativeMachine = 0)
    $bits32 = 'Gentle Shell needs 64-bit Windows (x64 or ARM64); this is 32-bit Windows'
    switch ($NativeMachine) {
        0 { break }
        0xAA64 { return 'win-arm64' }
        0x8664 { return 'win-x64' }
        0x014C { throw $bits32 }
        default { throw ('no gentle-shell-setup for this processor (machine type 0x{0:X4})' -f $NativeMachine) }
    }
    $name = $ProcessorArchitectureWow
    if (-not $name) { $name = $ProcessorArchitecture }
    if (-not $name) { throw 'cannot tell this processor: PROCESSOR_ARCHITECTURE is not set' }
    switch ($name.Trim().ToUpperInvariant()) {
        'ARM64' { return 'win-arm64' }
        'AMD64' { return 'win-x64' }
        'X86' { throw $bits32 }
        default { throw "no gentle-shell-setup for the $name processor" }
    }
}

function Get-GentleShellExpectedHash {
    # The sha256 SHA256SUMS lists for Name (lower case), or $null. A name listed twice with different sums is refused.
    param([string]$Text, [string]$Name)
    $found = $null
    foreach ($line in ($Text -split "`r?`n")) {
        $entry = [regex]::Match($line.Trim(), '^([0-9a-fA-F]{64}) [ *](.+)$')
        if (-not $entry.Success -or $entry.Groups[2].Value -cne $Name) { continue }
        $sum = $entry.Groups[1].Value.ToLowerInvariant()
        if ($null -ne $found -and $found -ne $sum) { throw "SHA256SUMS lists $Name twice, with different sums" }
        $found = $sum
    }
    return $found
}

function Get-GentleShellProxy {
    # How to reach Url: Mode 'proxy' (with Url) from HTTPS_PROXY, HTTP_PROXY or ALL_PROXY; 'direct' when NO_PROXY or the loopback address exempts it;
    # 'system' when no variable names a proxy (Windows' own settings).
    param([string]$Url, [hashtable]$Environment = @{})
    $names = if ($Url -match '^https:') { @('HTTPS_PROXY', 'ALL_PROXY') } else { @('HTTP_PROXY', 'ALL_PROXY') }
    $proxy = $null
    foreach ($variable in $names) {
        if ($Environment[$variable]) { $proxy = [string]$Environment[$variable]; break }
    }
    if (-not $proxy) { return [pscustomobject]@{ Mode = 'system'; Url = $null } }
    $hostName = ([regex]::Match($Url, '^[a-zA-Z][a-zA-Z0-9+.-]*://(?:[^/?#@]*@)?(\[[^\]]*\]|[^:/?#]*)')).Groups[1].Value.ToLowerInvariant()
    $exempt = $hostName -in @('127.0.0.1', 'localhost', '[::1]')
    foreach ($rule in ([string]$Environment['NO_PROXY']) -split ',') {
        $pattern = $rule.Trim().ToLowerInvariant() -replace '^\*?\.', '' -replace ':[0-9]+$', ''
        if (-not $pattern) { continue }
        if ($pattern -eq '*' -or $hostName -eq $pattern -or $hostName.EndsWith('.' + $pattern)) { $exempt = $true }
    }
    if ($exempt) { return [pscustomobject]@{ Mode = 'direct'; Url = $null } }
    if ($proxy -notmatch '^[a-zA-Z][a-zA-Z0-9+.-]*://') { $proxy = 'http://' + $proxy }
    return [pscustomobject]@{ Mode = 'proxy'; Url = $proxy }
}

function Get-GentleShellSecurityProtocol {
    # ServicePointManager.SecurityProtocol with TLS 1.2 added, unless it is SystemDefault (0), which already lets the system choose.
    param([int]$Current)
    if ($Current -eq 0) { return 0 }
    return ($Current -bor 3072)
}

function ConvertTo-GentleShellArgumentString {
    # One command line from separate arguments, quoted so that the Windows C runtime's rules (which Node's argv follows) give back exactly these.
    param([string[]]$Argument)
    if ($null -eq $Argument) { return '' }
    $quoted = foreach ($item in @($Argument)) {
        $text = [string]$item
        if ($text.Length -gt 0 -and $text -notmatch '[\s"]') { $text; continue }
        $out = '"'
        $slashes = 0
        foreach ($character in $text.ToCharArray()) {
            # Backslashes count only before a quote (doubled, plus one for the quote) and at the end (doubled).
            if ($character -eq [char]'\') { $slashes++; continue }
            if ($character -eq [char]'"') { $out += ('\' * ($slashes * 2 + 1)) + '"' } else { $out += ('\' * $slashes) + $character }
            $slashes = 0
        }
        $out + ('\' * ($slashes * 2)) + '"'
    }
    return (@($quoted) -join ' ')
}

# ---- The parts that touch the machine.

function Write-GentleShellMessage {
    param([string]$Text)
    Write-Information -MessageData "gentle-shell-setup: $Text" -InformationAction Continue
}

function Get-GentleShellEnvironment {
    $values = @{}
    $names = 'GENTLE_SHELL_YES', 'GENTLE_SHELL_NO_MODIFY_PATH', 'GENTLE_SHELL_RELEASE', 'GENTLE_SHELL_VERSION', 'GENTLE_SHELL_SETUP_DOWNLOAD', 'HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'NO_PROXY', 'PROCESSOR_ARCHITECTURE', 'PROCESSOR_ARCHITEW6432'
    foreach ($name in $names) { $values[$name] = [Environment]::GetEnvironmentVariable($name) }
    return $values
}

function Get-GentleShellNativeMachine {
    # IsWow64Process2's native machine (0xAA64 on ARM64 even for an emulated x64 PowerShell), or 0 where it is missing (before Windows 10 1511).
    try {
        if (-not ('GentleShellSetup.NativeMethod' -as [type])) {
            $signature = '[DllImport("kernel32.dll", SetLastError = true)] public static extern bool IsWow64Process2(IntPtr process, out ushort processMachine, out ushort nativeMachine);'
            Add-Type -Namespace 'GentleShellSetup' -Name 'NativeMethod' -MemberDefinition $signature -ErrorAction Stop
        }
        $native = 'GentleShellSetup.NativeMethod' -as [type]
        $processMachine = [uint16]0
        $nativeMachine = [uint16]0
        $process = [System.Diagnostics.Process]::GetCurrentProcess()
        if ($native::IsWow64Process2($process.Handle, [ref]$processMachine, [ref]$nativeMachine)) {
            return [int]$nativeMachine
        }
    } catch {
        Write-Verbose "IsWow64Process2 is not available here: $($_.Exception.Message)"
    }
    return 0
}

function Initialize-GentleShellTempFolder {
    # A new folder under %TEMP% that only this user can open.
    $path = Join-Path -Path ([IO.Path]::GetTempPath()) -ChildPath ('gentle-shell-setup-' + [Guid]::NewGuid().ToString('N'))
    $null = New-Item -ItemType Directory -Path $path -ErrorAction Stop
    try {
        $acl = Get-Acl -LiteralPath $path
        $acl.SetAccessRuleProtection($true, $false)
        foreach ($existing in @($acl.Access)) { $null = $acl.RemoveAccessRule($existing) }
        $user = [System.Security.Principal.WindowsIdentity]::GetCurrent().User
        $rule = New-Object -TypeName System.Security.AccessControl.FileSystemAccessRule -ArgumentList @($user, 'FullControl', 'ContainerInherit, ObjectInherit', 'None', 'Allow')
        $acl.AddAccessRule($rule)
        Set-Acl -LiteralPath $path -AclObject $acl -ErrorAction Stop
    } catch {
        Remove-Item -LiteralPath $path -Recurse -Force -ErrorAction SilentlyContinue
        throw "could not make the temporary folder $path private ($($_.Exception.Message))"
    }
    return $path
}

function Clear-GentleShellTempFolder {
    param([string]$Path)
    for ($attempt = 1; $attempt -le 5; $attempt++) {
        try {
            Remove-Item -LiteralPath $Path -Recurse -Force -ErrorAction Stop
            return
        } catch {
            # A virus scanner may still hold the binary for a moment.
            if ($attempt -eq 5) { Write-GentleShellMessage "could not remove $Path ($($_.Exception.Message)); delete it by hand" } else { Start-Sleep -Milliseconds 400 }
        }
    }
}

function Invoke-GentleShellDownload {
    param([string]$Url, [string]$OutFile, [hashtable]$Environment = @{})
    $target = Split-GentleShellUrlCredential -Url $Url
    $request = @{ Uri = $target.Url; OutFile = $OutFile; UseBasicParsing = $true; ErrorAction = 'Stop' }
    if ($target.Authorization) { $request['Headers'] = @{ Authorization = $target.Authorization } }
    $route = Get-GentleShellProxy -Url $target.Url -Environment $Environment
    if ($route.Mode -eq 'proxy') {
        $proxy = Split-GentleShellUrlCredential -Url $route.Url
        $request['Proxy'] = $proxy.Url
        if ($proxy.User) {
            $secret = (New-Object -TypeName System.Net.NetworkCredential -ArgumentList @($proxy.User, $proxy.Password)).SecurePassword
            $request['ProxyCredential'] = New-Object -TypeName System.Management.Automation.PSCredential -ArgumentList @($proxy.User, $secret)
        }
    } elseif ($route.Mode -eq 'direct' -and $PSVersionTable.PSVersion.Major -ge 6) {
        # PowerShell 7 reads HTTPS_PROXY itself; NO_PROXY and the loopback address go direct.
        $request['NoProxy'] = $true
    }
    $attempt = 0
    while ($true) {
        $attempt++
        try {
            Invoke-WebRequest @request
            return
        } catch {
            if ($attempt -ge 3) { throw }
            Start-Sleep -Seconds $attempt
        }
    }
}

function Invoke-GentleShellBinary {
    # Runs the binary on this console (its prompt needs the terminal, not a pipe) and gives back its exit code.
    param([string]$Path, [string[]]$Argument)
    $start = New-Object -TypeName System.Diagnostics.ProcessStartInfo
    $start.FileName = $Path
    $start.Arguments = ConvertTo-GentleShellArgumentString -Argument $Argument
    $start.UseShellExecute = $false
    $process = [System.Diagnostics.Process]::Start($start)
    $process.WaitForExit()
    return $process.ExitCode
}

function Invoke-GentleShellSetup {
    [CmdletBinding()]
    param([switch]$Yes, [switch]$NoModifyPath, [Alias('Version')][string]$Release, [string]$DownloadUrl, [string[]]$ArgumentList)
    # First, and outside the try (whose catch calls .NET): under Constrained Language Mode (AppLocker,
    # WDAC) the .NET calls below fail with messages that name neither.
    if ($ExecutionContext.SessionState.LanguageMode -ne 'FullLanguage') {
        $global:LASTEXITCODE = 1
        throw "gentle-shell-setup: PowerShell runs in $($ExecutionContext.SessionState.LanguageMode) mode here (an AppLocker or WDAC policy), which this installer cannot run in; download gentle-shell-setup-win-x64.exe and SHA256SUMS from the release page, check its hash, and run it"
    }
    Set-StrictMode -Version 2.0
    $ErrorActionPreference = 'Stop'
    $ProgressPreference = 'SilentlyContinue'
    $folder = $null
    $code = 1
    try {
        if ([Environment]::OSVersion.Platform -ne [PlatformID]::Win32NT) {
            throw 'install.ps1 is for Windows; on macOS and Linux run install.sh from the same release: curl -fsSL <release>/install.sh | sh'
        }
        if ($PSVersionTable.PSVersion.Major -lt 5) { throw "this needs Windows PowerShell 5.1 or PowerShell 7 (this is $($PSVersionTable.PSVersion))" }
        $environment = Get-GentleShellEnvironment
        $options = Resolve-GentleShellOption -Yes:$Yes -NoModifyPath:$NoModifyPath -Release $Release -DownloadUrl $DownloadUrl -ArgumentList $ArgumentList -Environment $environment
        $architecture = Get-GentleShellArchitecture -ProcessorArchitecture $environment['PROCESSOR_ARCHITECTURE'] -ProcessorArchitectureWow $environment['PROCESSOR_ARCHITEW6432'] -NativeMachine (Get-GentleShellNativeMachine)
        $name = "gentle-shell-setup-$architecture.exe"

        $protocol = Get-GentleShellSecurityProtocol -Current ([int][Net.ServicePointManager]::SecurityProtocol)
        if ($protocol -ne [int][Net.ServicePointManager]::SecurityProtocol) {
            [Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]$protocol
        }

        $folder = Initialize-GentleShellTempFolder
        $sums = Join-Path -Path $folder -ChildPath 'SHA256SUMS'
        $binary = Join-Path -Path $folder -ChildPath $name
        Write-GentleShellMessage "downloading $name"
        foreach ($file in @('SHA256SUMS', $name)) {
            try {
                Invoke-GentleShellDownload -Url "$($options.DownloadUrl)/$file" -OutFile (Join-Path -Path $folder -ChildPath $file) -Environment $environment
            } catch {
                throw "could not download $file from $($options.ShownDownloadUrl) ($($_.Exception.Message))"
            }
        }

        if ((Get-Item -LiteralPath $sums).Length -gt 1048576) { throw 'SHA256SUMS is larger than any release writes; nothing was installed' }
        $expected = Get-GentleShellExpectedHash -Text (Get-Content -LiteralPath $sums -Raw) -Name $name
        if (-not $expected) { throw "SHA256SUMS does not list $name; nothing was installed" }
        $actual = (Get-FileHash -LiteralPath $binary -Algorithm SHA256).Hash.ToLowerInvariant()
        if ($actual -cne $expected) { throw "$name does not match SHA256SUMS (expected $expected, got $actual); nothing was installed" }

        $code = Invoke-GentleShellBinary -Path $binary -Argument $options.Argument
    } catch {
        $global:LASTEXITCODE = 1
        throw ('gentle-shell-setup: ' + (Hide-GentleShellSecret -Text $_.Exception.Message))
    } finally {
        if ($folder) { Clear-GentleShellTempFolder -Path $folder }
    }
    $global:LASTEXITCODE = $code
    if ($code -ne 0) { throw "gentle-shell-setup: gentle-shell-setup install ended with exit code $code; its message above says why" }
}

# Run through `irm | iex`, as a script or a script block: install. Dot-sourced by the tests: define only.
if (-not (Get-Variable -Name 'GentleShellInstallNoMain' -ErrorAction Ignore)) {
    Invoke-GentleShellSetup -Yes:$Yes -NoModifyPath:$NoModifyPath -Release $Release -DownloadUrl $DownloadUrl -ArgumentList $ArgumentList
}
