# Pester 5 tests of installers/install.ps1 (the Windows job of ci.yml, under
# PowerShell 7 and 5.1), dot-sourced with $GentleShellInstallNoMain set: the pure
# parts directly; the install flow with its download and run edges mocked; the
# machine parts (IsWow64Process2, the private folder, a process) for real; and
# the script as the one-liners run it, in a fresh PowerShell, to its first refusal.

BeforeAll {
    $GentleShellInstallNoMain = $true
    $installer = (Resolve-Path -LiteralPath "$PSScriptRoot/../../installers/install.ps1").Path
    . $installer
    $powershell = (Get-Process -Id $PID).Path
    $defaultDownload = 'https://github.com/Gentleman-Programming/gentle-shell-setup/releases/latest/download'

    function Get-Sha256 {
        param([string]$Path)
        (Get-FileHash -LiteralPath $Path -Algorithm SHA256).Hash.ToLowerInvariant()
    }
}

Describe 'Resolve-GentleShellOption: parameters and environment variables' {
    It 'asks by default and downloads from the latest release' {
        $o = Resolve-GentleShellOption -Environment @{}
        $o.DownloadUrl | Should -BeExactly $defaultDownload
        $o.Argument -join '|' | Should -BeExactly 'install'
    }

    It 'turns the parameters into the binary''s options, followed by the arguments passed on' {
        $o = Resolve-GentleShellOption -Yes -NoModifyPath -Version '4.1.0' -ArgumentList @('--source', 'C:\My Mirror') -Environment @{}
        $o.Argument -join '|' | Should -BeExactly 'install|--yes|--no-modify-path|--release|4.1.0|--source|C:\My Mirror'
    }

    It 'reads each parameter from its environment variable' {
        $o = Resolve-GentleShellOption -Environment @{
            GENTLE_SHELL_YES = '1'
            GENTLE_SHELL_NO_MODIFY_PATH = 'true'
            GENTLE_SHELL_VERSION = '4.2.0-rc.1'
            GENTLE_SHELL_SETUP_DOWNLOAD = 'https://mirror.example/gentle-shell/'
        }
        $o.DownloadUrl | Should -BeExactly 'https://mirror.example/gentle-shell'
        $o.Argument -join '|' | Should -BeExactly 'install|--yes|--no-modify-path|--release|4.2.0-rc.1'
    }

    It 'lets a parameter win over its variable' {
        $o = Resolve-GentleShellOption -Version '4.1.0' -DownloadUrl 'https://a.example/dl' -Environment @{ GENTLE_SHELL_VERSION = '4.2.0'; GENTLE_SHELL_SETUP_DOWNLOAD = 'https://b.example/dl' }
        $o.DownloadUrl | Should -BeExactly 'https://a.example/dl'
        $o.Argument -join '|' | Should -BeExactly 'install|--release|4.1.0'
    }

    It 'names the release as the binary does (-Release, GENTLE_SHELL_RELEASE), and still reads the older -Version and GENTLE_SHELL_VERSION' {
        (Resolve-GentleShellOption -Release '4.1.0' -Environment @{}).Argument -join '|' | Should -BeExactly 'install|--release|4.1.0'
        (Resolve-GentleShellOption -Environment @{ GENTLE_SHELL_RELEASE = '4.3.0' }).Argument -join '|' | Should -BeExactly 'install|--release|4.3.0'
        (Resolve-GentleShellOption -Environment @{ GENTLE_SHELL_RELEASE = '4.3.0'; GENTLE_SHELL_VERSION = '4.2.0' }).Argument -join '|' | Should -BeExactly 'install|--release|4.3.0'
        (Resolve-GentleShellOption -Version '4.1.0' -Environment @{ GENTLE_SHELL_RELEASE = '4.3.0' }).Argument -join '|' | Should -BeExactly 'install|--release|4.1.0'
        { Resolve-GentleShellOption -Environment @{ GENTLE_SHELL_RELEASE = '4.1' } } | Should -Throw -ExpectedMessage '*-Release or GENTLE_SHELL_RELEASE*'
    }

    It 'reads 0, false, no and an empty value as off, and latest as no --release' {
        $o = Resolve-GentleShellOption -Environment @{ GENTLE_SHELL_YES = '0'; GENTLE_SHELL_NO_MODIFY_PATH = 'no'; GENTLE_SHELL_VERSION = 'latest' }
        $o.Argument -join '|' | Should -BeExactly 'install'
        (Resolve-GentleShellOption -Environment @{ GENTLE_SHELL_YES = '' }).Argument -join '|' | Should -BeExactly 'install'
    }

    It 'refuses a switch variable that is neither on nor off' {
        { Resolve-GentleShellOption -Environment @{ GENTLE_SHELL_YES = 'maybe' } } | Should -Throw -ExpectedMessage "GENTLE_SHELL_YES must be 1 or 0, not 'maybe'"
    }

    It 'refuses a version that is not exact' {
        { Resolve-GentleShellOption -Version '4.1' -Environment @{} } | Should -Throw -ExpectedMessage '*must be an exact Gentle Shell version such as 4.1.0, or latest*'
        { Resolve-GentleShellOption -Environment @{ GENTLE_SHELL_VERSION = '4.1.0; calc' } } | Should -Throw -ExpectedMessage '*must be an exact Gentle Shell version*'
    }

    It 'takes https, or plain http only on the loopback address' {
        (Resolve-GentleShellOption -DownloadUrl 'http://127.0.0.1:8080/dl' -Environment @{}).DownloadUrl | Should -BeExactly 'http://127.0.0.1:8080/dl'
        (Resolve-GentleShellOption -DownloadUrl 'http://localhost/dl' -Environment @{}).DownloadUrl | Should -BeExactly 'http://localhost/dl'
        { Resolve-GentleShellOption -DownloadUrl 'http://mirror.example/dl' -Environment @{} } | Should -Throw -ExpectedMessage '*must be an https URL*'
        { Resolve-GentleShellOption -DownloadUrl 'http://127.0.0.1:@evil.example/dl' -Environment @{} } | Should -Throw -ExpectedMessage '*must be an https URL*' # host evil.example: 127.0.0.1: is a user name
        { Resolve-GentleShellOption -DownloadUrl 'ftp://mirror.example/dl' -Environment @{} } | Should -Throw -ExpectedMessage '*must be an https URL*'
    }

    It 'masks the credentials of the download folder it refuses' {
        $e = { Resolve-GentleShellOption -Environment @{ GENTLE_SHELL_SETUP_DOWNLOAD = 'http://alice:s3cret@mirror.example/dl?access_token=t0k3n' } } | Should -Throw -PassThru
        $e.Exception.Message | Should -BeExactly 'the download folder (-DownloadUrl or GENTLE_SHELL_SETUP_DOWNLOAD) must be an https URL (got http://***@mirror.example/dl?access_token=***)'
    }

    It 'keeps the credentials for the download and shows the folder masked' {
        $o = Resolve-GentleShellOption -Environment @{ GENTLE_SHELL_SETUP_DOWNLOAD = 'https://alice:s3cret@mirror.example/dl' }
        $o.DownloadUrl | Should -BeExactly 'https://alice:s3cret@mirror.example/dl'
        $o.ShownDownloadUrl | Should -BeExactly 'https://***@mirror.example/dl'
    }
}

Describe 'Get-GentleShellArchitecture: the real processor' {
    It 'takes IsWow64Process2''s native machine over what an emulated process is told' {
        Get-GentleShellArchitecture -ProcessorArchitecture 'AMD64' -NativeMachine 0xAA64 | Should -BeExactly 'win-arm64'
        Get-GentleShellArchitecture -ProcessorArchitecture 'x86' -ProcessorArchitectureWow 'AMD64' -NativeMachine 0x8664 | Should -BeExactly 'win-x64'
    }

    It 'falls back to PROCESSOR_ARCHITEW6432, then PROCESSOR_ARCHITECTURE' {
        Get-GentleShellArchitecture -ProcessorArchitecture 'x86' -ProcessorArchitectureWow 'ARM64' | Should -BeExactly 'win-arm64'
        Get-GentleShellArchitecture -ProcessorArchitecture 'x86' -ProcessorArchitectureWow 'AMD64' | Should -BeExactly 'win-x64'
        Get-GentleShellArchitecture -ProcessorArchitecture 'ARM64' | Should -BeExactly 'win-arm64'
        Get-GentleShellArchitecture -ProcessorArchitecture 'AMD64' | Should -BeExactly 'win-x64'
    }

    It 'refuses 32-bit Windows and other processors' {
        { Get-GentleShellArchitecture -ProcessorArchitecture 'x86' } | Should -Throw -ExpectedMessage '*needs 64-bit Windows*'
        { Get-GentleShellArchitecture -ProcessorArchitecture 'x86' -NativeMachine 0x014C } | Should -Throw -ExpectedMessage '*needs 64-bit Windows*'
        { Get-GentleShellArchitecture -ProcessorArchitecture 'IA64' } | Should -Throw -ExpectedMessage 'no gentle-shell-setup for the IA64 processor'
        { Get-GentleShellArchitecture -NativeMachine 0x01C4 } | Should -Throw -ExpectedMessage '*machine type 0x01C4*'
    }

    It 'reads this machine''s native machine through IsWow64Process2' {
        $native = Get-GentleShellNativeMachine
        $native | Should -BeIn @(0x8664, 0xAA64)
        $expected = if ($native -eq 0xAA64) { 'win-arm64' } else { 'win-x64' }
        Get-GentleShellArchitecture -ProcessorArchitecture $env:PROCESSOR_ARCHITECTURE -ProcessorArchitectureWow $env:PROCESSOR_ARCHITEW6432 -NativeMachine $native | Should -BeExactly $expected
    }
}

Describe 'Get-GentleShellExpectedHash: reading SHA256SUMS' {
    BeforeAll {
        $x64 = 'ab' * 32
        $arm = 'CD' * 32
        $sums = "$('0' * 64)  gentle-shell-setup-linux-x64`n$x64  gentle-shell-setup-win-x64.exe`n$arm *gentle-shell-setup-win-arm64.exe`n"
    }

    It 'finds the line for the name, in text or binary mode, in lower case' {
        Get-GentleShellExpectedHash -Text $sums -Name 'gentle-shell-setup-win-x64.exe' | Should -BeExactly $x64
        Get-GentleShellExpectedHash -Text $sums -Name 'gentle-shell-setup-win-arm64.exe' | Should -BeExactly $arm.ToLowerInvariant()
        Get-GentleShellExpectedHash -Text ($sums -replace "`n", "`r`n") -Name 'gentle-shell-setup-win-x64.exe' | Should -BeExactly $x64
    }

    It 'gives nothing for a name it does not list exactly' {
        Get-GentleShellExpectedHash -Text $sums -Name 'gentle-shell-setup-win-x64' | Should -BeNullOrEmpty
        Get-GentleShellExpectedHash -Text $sums -Name 'GENTLE-SHELL-SETUP-WIN-X64.EXE' | Should -BeNullOrEmpty
        Get-GentleShellExpectedHash -Text "$('a' * 63)  gentle-shell-setup-win-x64.exe`n" -Name 'gentle-shell-setup-win-x64.exe' | Should -BeNullOrEmpty
        Get-GentleShellExpectedHash -Text '' -Name 'gentle-shell-setup-win-x64.exe' | Should -BeNullOrEmpty
    }

    It 'refuses a name listed twice with different sums' {
        { Get-GentleShellExpectedHash -Text "$sums$arm  gentle-shell-setup-win-x64.exe`n" -Name 'gentle-shell-setup-win-x64.exe' } | Should -Throw -ExpectedMessage '*lists gentle-shell-setup-win-x64.exe twice*'
        Get-GentleShellExpectedHash -Text "$sums$x64  gentle-shell-setup-win-x64.exe`n" -Name 'gentle-shell-setup-win-x64.exe' | Should -BeExactly $x64
    }
}

Describe 'Hide-GentleShellSecret and Split-GentleShellUrlCredential' {
    It 'masks user:password@ and credential-like query values in any text' {
        Hide-GentleShellSecret -Text 'from https://alice:s3cret@mirror.example/dl and http://bob@proxy:3128' | Should -BeExactly 'from https://***@mirror.example/dl and http://***@proxy:3128'
        Hide-GentleShellSecret -Text 'https://mirror.example/dl?os=win&_authToken=abc&sig=xyz&page=2' | Should -BeExactly 'https://mirror.example/dl?os=win&_authToken=***&sig=***&page=2'
        Hide-GentleShellSecret -Text 'https://mirror.example/dl/SHA256SUMS' | Should -BeExactly 'https://mirror.example/dl/SHA256SUMS'
    }

    It 'hides a password holding @, a quote, <, > or a space whole, and a query value holding a quote (issue 39, defect 2)' {
        foreach ($password in @('p@ss', 'SEC"RET', "SEC'RET", 'a<b>c', 'SEC RET', 'x@@y')) {
            $shown = Hide-GentleShellSecret -Text "proxy http://carol:$password@127.0.0.1:3128 answered 407"
            $shown | Should -BeExactly 'proxy http://***@127.0.0.1:3128 answered 407'
        }
        Hide-GentleShellSecret -Text 'https://mirror.example/dl/?token=AB"CD&os=win' | Should -BeExactly 'https://mirror.example/dl/?token=***&os=win'
        Hide-GentleShellSecret -Text 'mail carol@example.com about http://mirror.example/a@b' | Should -BeExactly 'mail carol@example.com about http://mirror.example/a@b'
    }

    It 'splits the credentials off, percent-decoded, as a Basic header' {
        $s = Split-GentleShellUrlCredential -Url 'https://alice:p%40ss@mirror.example/dl'
        $s.Url | Should -BeExactly 'https://mirror.example/dl'
        $s.User | Should -BeExactly 'alice'
        $s.Password | Should -BeExactly 'p@ss'
        $s.Authorization | Should -BeExactly ('Basic ' + [Convert]::ToBase64String([Text.Encoding]::UTF8.GetBytes('alice:p@ss')))
        $plain = Split-GentleShellUrlCredential -Url 'https://mirror.example/a@b'
        $plain.Url | Should -BeExactly 'https://mirror.example/a@b'
        $plain.Authorization | Should -BeNullOrEmpty
    }

    It 'takes the credentials to the last @ of the host part, as the HTTP client does' {
        $s = Split-GentleShellUrlCredential -Url 'http://carol:p@ss@proxy.corp:3128'
        $s.Url | Should -BeExactly 'http://proxy.corp:3128'
        $s.User | Should -BeExactly 'carol'
        $s.Password | Should -BeExactly 'p@ss'
        $q = Split-GentleShellUrlCredential -Url 'https://carol:SEC"RET@mirror.example/dl/a@b?x=1'
        $q.Url | Should -BeExactly 'https://mirror.example/dl/a@b?x=1'
        $q.Password | Should -BeExactly 'SEC"RET'
    }
}

Describe 'Get-GentleShellProxy: HTTPS_PROXY, ALL_PROXY, NO_PROXY' {
    It 'takes HTTPS_PROXY for https, then ALL_PROXY' {
        $p = Get-GentleShellProxy -Url 'https://mirror.example/dl' -Environment @{ HTTPS_PROXY = 'http://proxy.corp:3128'; ALL_PROXY = 'http://other:1' }
        $p.Mode | Should -BeExactly 'proxy'
        $p.Url | Should -BeExactly 'http://proxy.corp:3128'
        (Get-GentleShellProxy -Url 'https://mirror.example/dl' -Environment @{ ALL_PROXY = 'proxy.corp:8080' }).Url | Should -BeExactly 'http://proxy.corp:8080'
        (Get-GentleShellProxy -Url 'https://mirror.example/dl' -Environment @{ HTTP_PROXY = 'http://plain:1' }).Mode | Should -BeExactly 'system'
    }

    It 'leaves Windows'' own proxy settings in charge when no variable names one' {
        (Get-GentleShellProxy -Url 'https://mirror.example/dl' -Environment @{}).Mode | Should -BeExactly 'system'
    }

    It 'goes direct to the loopback address and to hosts NO_PROXY names' {
        $vars = @{ HTTPS_PROXY = 'http://proxy.corp:3128'; HTTP_PROXY = 'http://proxy.corp:3128'; NO_PROXY = 'localhost, .internal.example,mirror.example:443' }
        (Get-GentleShellProxy -Url 'http://127.0.0.1:8080/dl' -Environment $vars).Mode | Should -BeExactly 'direct'
        (Get-GentleShellProxy -Url 'https://files.internal.example/dl' -Environment $vars).Mode | Should -BeExactly 'direct'
        (Get-GentleShellProxy -Url 'https://mirror.example/dl' -Environment $vars).Mode | Should -BeExactly 'direct'
        (Get-GentleShellProxy -Url 'https://notmirror.example/dl' -Environment $vars).Mode | Should -BeExactly 'proxy'
        (Get-GentleShellProxy -Url 'https://anything.example/dl' -Environment @{ HTTPS_PROXY = 'http://p:1'; NO_PROXY = '*' }).Mode | Should -BeExactly 'direct'
    }
}

Describe 'Get-GentleShellSecurityProtocol: TLS 1.2 only where it is not SystemDefault' {
    It 'leaves SystemDefault alone and adds TLS 1.2 to an explicit list' {
        Get-GentleShellSecurityProtocol -Current 0 | Should -Be 0
        Get-GentleShellSecurityProtocol -Current (48 -bor 192) | Should -Be (48 -bor 192 -bor 3072)
        Get-GentleShellSecurityProtocol -Current 3072 | Should -Be 3072
    }
}

Describe 'ConvertTo-GentleShellArgumentString and Invoke-GentleShellBinary' {
    It 'quotes only what needs it, by the C runtime''s rules' {
        ConvertTo-GentleShellArgumentString -Argument @('install', '--yes') | Should -BeExactly 'install --yes'
        ConvertTo-GentleShellArgumentString -Argument @('C:\My Folder\') | Should -BeExactly '"C:\My Folder\\"'
        ConvertTo-GentleShellArgumentString -Argument @('say "hi"') | Should -BeExactly '"say \"hi\""'
        ConvertTo-GentleShellArgumentString -Argument @('a\\"b') | Should -BeExactly '"a\\\\\"b"'
        ConvertTo-GentleShellArgumentString -Argument @('') | Should -BeExactly '""'
        ConvertTo-GentleShellArgumentString -Argument @() | Should -BeExactly ''
    }

    It 'hands a real program exactly the arguments, and gives back its exit code' {
        $node = (Get-Command -Name node -CommandType Application | Select-Object -First 1).Source
        $tricky = @('two words', 'C:\Program Files\x\', 'a"b', '', '\\server\share', 'x\\"y', '100% ^&|<>', '--source=C:\My Mirror')
        $env:GSS_WANT = ConvertTo-Json -InputObject $tricky -Compress
        try {
            $check = 'process.exit(JSON.stringify(process.argv.slice(1)) === JSON.stringify(JSON.parse(process.env.GSS_WANT)) ? 0 : 9)'
            Invoke-GentleShellBinary -Path $node -Argument (@('-e', $check) + $tricky) | Should -Be 0
        } finally {
            Remove-Item -LiteralPath Env:GSS_WANT
        }
        Invoke-GentleShellBinary -Path $node -Argument @('-e', 'process.exit(7)') | Should -Be 7
    }
}

Describe 'Initialize-GentleShellTempFolder: a fresh private folder' {
    It 'makes a new empty folder under %TEMP% that only this user can open, and Clear removes it' {
        $a = Initialize-GentleShellTempFolder
        $b = Initialize-GentleShellTempFolder
        try {
            $a | Should -Not -Be $b
            (Split-Path -Parent $a).TrimEnd('\') | Should -Be ([IO.Path]::GetTempPath().TrimEnd('\'))
            @(Get-ChildItem -LiteralPath $a -Force) | Should -HaveCount 0
            $acl = Get-Acl -LiteralPath $a
            $acl.AreAccessRulesProtected | Should -BeTrue
            $me = [System.Security.Principal.WindowsIdentity]::GetCurrent().User
            $rules = @($acl.GetAccessRules($true, $true, [System.Security.Principal.SecurityIdentifier]))
            $rules | Should -HaveCount 1
            $rules[0].IdentityReference | Should -Be $me
            $rules[0].FileSystemRights.ToString() | Should -Match 'FullControl'
            $rules[0].AccessControlType.ToString() | Should -BeExactly 'Allow'
        } finally {
            Clear-GentleShellTempFolder -Path $a
            Clear-GentleShellTempFolder -Path $b
        }
        Test-Path -LiteralPath $a | Should -BeFalse
        Test-Path -LiteralPath $b | Should -BeFalse
    }
}

Describe 'Invoke-GentleShellSetup: download, verify, run, clean up (downloads and the run mocked)' {
    BeforeAll {
        $fixture = Join-Path -Path ([IO.Path]::GetTempPath()) -ChildPath ('gss-pester-' + [Guid]::NewGuid().ToString('N'))
        $null = New-Item -ItemType Directory -Path $fixture
        $good = Join-Path $fixture 'good'
        $null = New-Item -ItemType Directory -Path $good
        foreach ($arch in @('win-x64', 'win-arm64')) {
            [IO.File]::WriteAllText((Join-Path $good "gentle-shell-setup-$arch.exe"), "fake binary for $arch")
        }
        $lines = foreach ($arch in @('win-x64', 'win-arm64')) { "$(Get-Sha256 (Join-Path $good "gentle-shell-setup-$arch.exe"))  gentle-shell-setup-$arch.exe" }
        [IO.File]::WriteAllText((Join-Path $good 'SHA256SUMS'), ($lines -join "`n") + "`n")
        $bad = Join-Path $fixture 'bad'
        $null = New-Item -ItemType Directory -Path $bad
        Copy-Item -Path (Join-Path $good '*') -Destination $bad
        foreach ($arch in @('win-x64', 'win-arm64')) { [IO.File]::AppendAllText((Join-Path $bad "gentle-shell-setup-$arch.exe"), 'tampered') }
        $unlisted = Join-Path $fixture 'unlisted'
        $null = New-Item -ItemType Directory -Path $unlisted
        Copy-Item -Path (Join-Path $good 'gentle-shell-setup-*') -Destination $unlisted
        [IO.File]::WriteAllText((Join-Path $unlisted 'SHA256SUMS'), "$('0' * 64)  gentle-shell-setup-linux-x64`n")
        $arch = Get-GentleShellArchitecture -ProcessorArchitecture $env:PROCESSOR_ARCHITECTURE -ProcessorArchitectureWow $env:PROCESSOR_ARCHITEW6432 -NativeMachine (Get-GentleShellNativeMachine)
        $seen = @{}
    }

    AfterAll {
        Remove-Item -LiteralPath $fixture -Recurse -Force
    }

    BeforeEach {
        $seen.Clear()
        $seen.Urls = New-Object System.Collections.Generic.List[string]
        $seen.Source = $good
        $seen.ExitCode = 0
        $seen.Environment = @{ PROCESSOR_ARCHITECTURE = $env:PROCESSOR_ARCHITECTURE; PROCESSOR_ARCHITEW6432 = $env:PROCESSOR_ARCHITEW6432; GENTLE_SHELL_SETUP_DOWNLOAD = 'https://mirror.example/dl' }
        Mock Get-GentleShellEnvironment { $seen.Environment }
        Mock Invoke-GentleShellDownload {
            $seen.Urls.Add($Url)
            $seen.Folder = Split-Path -Parent $OutFile
            Copy-Item -LiteralPath (Join-Path $seen.Source (Split-Path -Leaf $OutFile)) -Destination $OutFile
        }
        Mock Invoke-GentleShellBinary {
            $seen.Binary = $Path
            $seen.Argument = $Argument
            $seen.HashAtRun = Get-Sha256 $Path
            $seen.ExitCode
        }
        $global:LASTEXITCODE = 0
    }

    It 'runs the verified binary for this machine with the arguments, then removes its folder' {
        Invoke-GentleShellSetup -Yes -NoModifyPath -Version '4.1.0' -ArgumentList @('--source', 'C:\My Mirror')
        $global:LASTEXITCODE | Should -Be 0
        $seen.Urls -join '|' | Should -BeExactly ('https://mirror.example/dl/SHA256SUMS' + '|' + "https://mirror.example/dl/gentle-shell-setup-$arch.exe")
        Split-Path -Leaf $seen.Binary | Should -BeExactly "gentle-shell-setup-$arch.exe"
        $seen.HashAtRun | Should -BeExactly (Get-Sha256 (Join-Path $good "gentle-shell-setup-$arch.exe"))
        $seen.Argument -join '|' | Should -BeExactly 'install|--yes|--no-modify-path|--release|4.1.0|--source|C:\My Mirror'
        Split-Path -Parent $seen.Binary | Should -BeExactly $seen.Folder
        Test-Path -LiteralPath $seen.Folder | Should -BeFalse
    }

    It 'throws, never exits, with the binary''s exit code in $LASTEXITCODE when it fails' {
        $seen.ExitCode = 3
        { Invoke-GentleShellSetup -Yes } | Should -Throw -ExpectedMessage '*gentle-shell-setup install ended with exit code 3*'
        $global:LASTEXITCODE | Should -Be 3
        Test-Path -LiteralPath $seen.Folder | Should -BeFalse
    }

    It 'refuses a binary that does not match SHA256SUMS, runs nothing, and removes the folder' {
        $seen.Source = $bad
        $e = { Invoke-GentleShellSetup -Yes } | Should -Throw -PassThru
        $e.Exception.Message | Should -Match ("^gentle-shell-setup: gentle-shell-setup-$arch\.exe does not match SHA256SUMS \(expected [0-9a-f]{64}, got [0-9a-f]{64}\); nothing was installed$")
        Should -Invoke Invoke-GentleShellBinary -Times 0 -Exactly
        $global:LASTEXITCODE | Should -Be 1
        Test-Path -LiteralPath $seen.Folder | Should -BeFalse
    }

    It 'refuses a binary SHA256SUMS does not list, and runs nothing' {
        $seen.Source = $unlisted
        { Invoke-GentleShellSetup -Yes } | Should -Throw -ExpectedMessage "*SHA256SUMS does not list gentle-shell-setup-$arch.exe; nothing was installed*"
        Should -Invoke Invoke-GentleShellBinary -Times 0 -Exactly
    }

    It 'names the download folder masked when a download fails' {
        $seen.Environment.GENTLE_SHELL_SETUP_DOWNLOAD = 'https://alice:s3cret@mirror.example/dl?token=t0k3n'
        Mock Invoke-GentleShellDownload { $seen.Folder = Split-Path -Parent $OutFile; throw 'the server said no' }
        $e = { Invoke-GentleShellSetup -Yes } | Should -Throw -PassThru
        $e.Exception.Message | Should -BeExactly 'gentle-shell-setup: could not download SHA256SUMS from https://***@mirror.example/dl?token=*** (the server said no)'
        Should -Invoke Invoke-GentleShellBinary -Times 0 -Exactly
        Test-Path -LiteralPath $seen.Folder | Should -BeFalse
    }
}

Describe 'install.ps1 as the one-liners run it (a fresh PowerShell, no network)' {
    BeforeAll {
        # The child reports what install.ps1 threw and exits 7 (had it called exit, no message).
        function Invoke-Child {
            param([string]$Run)
            $command = 'try {{ {0} }} catch {{ [Console]::Out.WriteLine($_.Exception.Message); exit 7 }}' -f $Run
            & $powershell -NoProfile -NonInteractive -Command $command 2>&1 | Out-String
        }
    }

    It 'binds the parameters of the script-block form and refuses a plain-http folder before any download' {
        $out = Invoke-Child ("& ([scriptblock]::Create((Get-Content -Raw -LiteralPath '{0}'))) -Yes -DownloadUrl 'http://mirror.example/dl'" -f $installer)
        $LASTEXITCODE | Should -Be 7
        $out.Trim() | Should -BeExactly 'gentle-shell-setup: the download folder (-DownloadUrl or GENTLE_SHELL_SETUP_DOWNLOAD) must be an https URL (got http://mirror.example/dl)'
    }

    It 'takes no positional parameter: in the script-block form everything after -- reaches ArgumentList' {
        # The script's own attribute and param block, around a body that reports what they bound.
        $ast = [scriptblock]::Create((Get-Content -Raw -LiteralPath $installer)).Ast
        $head = ($ast.ParamBlock.Attributes | ForEach-Object { $_.Extent.Text }) -join "`n"
        $probe = [scriptblock]::Create($head + "`n" + $ast.ParamBlock.Extent.Text + "`n" + '@{ Release = $Release; DownloadUrl = $DownloadUrl; Rest = @($ArgumentList) }')
        $bound = & $probe -Yes -- --source 'D:\m'
        $bound.Release | Should -BeNullOrEmpty
        $bound.DownloadUrl | Should -BeNullOrEmpty
        $bound.Rest | Should -Be @('--source', 'D:\m')
    }

    It 'refuses Constrained Language Mode first, in one sentence that names it' {
        # The irm | iex form: a static .NET call such as [scriptblock]::Create is itself refused in that mode.
        $command = '$ExecutionContext.SessionState.LanguageMode = ''ConstrainedLanguage''; try {{ Get-Content -Raw -LiteralPath ''{0}'' | Invoke-Expression }} catch {{ $_.Exception.Message; exit 7 }}' -f $installer
        $out = & $powershell -NoProfile -NonInteractive -Command $command 2>&1 | Out-String
        $LASTEXITCODE | Should -Be 7
        $out.Trim() | Should -Match '^gentle-shell-setup: PowerShell runs in ConstrainedLanguage mode here \(an AppLocker or WDAC policy\)'
    }

    It 'reads GENTLE_SHELL_SETUP_DOWNLOAD under irm | iex, and masks its credentials' {
        $env:GENTLE_SHELL_SETUP_DOWNLOAD = 'http://alice:s3cret@mirror.example/dl'
        try {
            $out = Invoke-Child ("Get-Content -Raw -LiteralPath '{0}' | Invoke-Expression" -f $installer)
        } finally {
            Remove-Item -LiteralPath Env:GENTLE_SHELL_SETUP_DOWNLOAD
        }
        $LASTEXITCODE | Should -Be 7
        $out.Trim() | Should -BeExactly 'gentle-shell-setup: the download folder (-DownloadUrl or GENTLE_SHELL_SETUP_DOWNLOAD) must be an https URL (got http://***@mirror.example/dl)'
    }
}
