package permission

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// commandTable is the accept-list of programs nova understands, one entry
// per program (or "program subcommand"), in the syntax parseSpec reads:
//
//	options ; attributes
//
// -a -bc are flags, -o=w an option whose value is a file written (kinds:
// v value, r read, w write, x program run, n network, p pattern, P pattern
// file), --name[=] an optional value, !mark what a flag does (inplace,
// rec, tree, x, n, w, noindex). Attributes: pos=KIND of positional words
// (default r), skip=N leading positionals that are not files, max=N, ro
// (only reads), edit (a file edit acceptEdits allows), cwd (reads . when
// given no file), tree (reads recursively), num (-NUM), neg (--no-X), any
// (every argument harmless), dash (options are words after one dash).
//
// Adding a program is one entry here and a row in its tests: what is not
// listed asks.
func commandTable() map[string]string {
	sums := "-b -c -t -z -w --binary --check --tag --text --zero --ignore-missing --quiet --status --strict --warn ; ro"
	grep := "-E -F -G -P -e=p -f=P -i -y -v -w -x -c -L -l -m= -o -q -s -b -H -h -n -T -Z -z -A= -B= -C= -a -I -d= -D= -U " +
		"-r!tree -R!follow --color[=] --colour[=] --null-data --extended-regexp --fixed-strings --basic-regexp --perl-regexp " +
		"--regexp=p --file=P --ignore-case --no-ignore-case --invert-match --word-regexp --line-regexp --count " +
		"--files-without-match --files-with-matches --max-count= --only-matching --quiet --silent --no-messages --byte-offset " +
		"--with-filename --no-filename --label= --line-number --initial-tab --null --after-context= --before-context= " +
		"--context= --text --binary-files= --devices= --directories= --exclude= --exclude-from=r --exclude-dir= --include= " +
		"--recursive!tree --dereference-recursive!follow --line-buffered --binary --version --help ; skip=1 num ro"
	none := "; pos=v ro"
	return map[string]string{
		"cat":  "-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting ; ro",
		"head": "-c= -n= -q -v -z --bytes= --lines= --quiet --silent --verbose --zero-terminated ; num ro",
		"tail": "-c= -f -F -n= -q -s= -v -z --bytes= --follow[=] --lines= --max-unchanged-stats= --pid= --quiet --retry --silent --sleep-interval= --verbose --zero-terminated ; num ro",
		"wc":   "-c -m -l -L -w --bytes --chars --lines --max-line-length --words --files0-from=L --total= ; ro",
		"ls": "-a -A -b -B -c -C -d -D -f -F -g -G -h -H -i -k -l -L -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X -Z -1 -I= -T= -w= " +
			"--all --almost-all --author --escape --block-size= --ignore-backups --color[=] --directory --dired --classify[=] --file-type " +
			"--format= --full-time --group-directories-first --no-group --human-readable --si --dereference-command-line " +
			"--dereference-command-line-symlink-to-dir --hide= --hyperlink[=] --indicator-style= --inode --ignore= --kibibytes " +
			"--dereference --literal --numeric-uid-gid --hide-control-chars --show-control-chars --quote-name --quoting-style= " +
			"--reverse --recursive --size --sort= --time= --time-style= --tabsize= --width= --context --zero ; cwd ro",
		"grep": grep, "egrep": grep, "fgrep": grep,
		"rg": "-e=p -f=P -g= -t= -T= -A= -B= -C= -m= -M= -j= -d= -E= -r= -i -s -S -F -x -w -v -c -l -o -n -N -H -I -p -q -u -U -P -a -b -0 -h -V -. -L!follow " +
			"--regexp=p --file=P --glob= --iglob= --type= --type-not= --type-add= --type-clear= --after-context= --before-context= " +
			"--context= --max-count= --max-columns= --threads= --max-depth= --maxdepth= --max-filesize= --encoding= --engine= --replace= " +
			"--path-separator= --color= --colors= --sort= --sortr= --context-separator= --field-context-separator= " +
			"--field-match-separator= --dfa-size-limit= --regex-size-limit= --hyperlink-format= --ignore-file=r --multiline " +
			"--multiline-dotall --pcre2 --no-pcre2 --ignore-case --case-sensitive --smart-case --fixed-strings --line-regexp " +
			"--word-regexp --invert-match --count --count-matches --files-with-matches --files-without-match --only-matching " +
			"--line-number --no-line-number --with-filename --no-filename --heading --no-heading --pretty --quiet --unrestricted " +
			"--hidden --no-hidden --follow!follow --no-follow --no-ignore --no-ignore-dot --no-ignore-exclude --no-ignore-files " +
			"--no-ignore-global --no-ignore-parent --no-ignore-vcs --no-require-git --ignore --files --type-list --json --no-json " +
			"--vimgrep --stats --trim --null --null-data --text --binary --no-binary --crlf --line-buffered --block-buffered " +
			"--byte-offset --column --no-column --passthru --include-zero --one-file-system --no-messages --no-unicode " +
			"--auto-hybrid-regex --glob-case-insensitive --ignore-file-case-insensitive --sort-files --no-config --debug --trace " +
			"--help --version --max-count-per-file --pre=x --pre-glob= -z!x --search-zip!x --hostname-bin=x ; skip=1 tree cwd exact ro",
		"sort": "-b -c -C -d -f -g -h -i -M -m -n -R -r -s -u -V -z -k= -t= -S= -T=w -o=w --output=w --compress-program=x " +
			"--files0-from=L --random-source=r --parallel= --batch-size= --debug --check[=] --ignore-leading-blanks " +
			"--dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting --month-sort --human-numeric-sort " +
			"--numeric-sort --random-sort --reverse --sort= --version-sort --merge --stable --unique --zero-terminated --key= " +
			"--field-separator= --buffer-size= --temporary-directory=w ; ro",
		"uniq": "-c -d -D -f= -i -s= -u -w= -z --count --repeated --all-repeated[=] --skip-fields= --group[=] --ignore-case " +
			"--skip-chars= --unique --zero-terminated --check-chars= ; ro",
		"cut": "-b= -c= -d= -f= -n -s -z --bytes= --characters= --delimiter= --fields= --complement --only-delimited --output-delimiter= --zero-terminated ; ro",
		"tr":  "-c -C -d -s -t --complement --delete --squeeze-repeats --truncate-set1 ; pos=v ro",
		"nl": "-b= -d= -f= -h= -i= -l= -n= -p -s= -v= -w= --body-numbering= --section-delimiter= --footer-numbering= " +
			"--header-numbering= --line-increment= --join-blank-lines= --number-format= --no-renumber --number-separator= " +
			"--starting-line-number= --number-width= ; ro",
		"diff": "-i -E -Z -b -w -B -I= -a -r!tree -N -q -s -u -U= -c -C= -e -n -y -W= -l -t -T -d -p -F= -x= -X=r -S= " +
			"--from-file=r --to-file=r --brief --unified[=] --context[=] --color[=] --recursive!tree --new-file --unidirectional-new-file " +
			"--exclude= --exclude-from=r --ignore-case --ignore-file-name-case --no-ignore-file-name-case --ignore-tab-expansion " +
			"--ignore-trailing-space --ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-matching-lines= --label= " +
			"--side-by-side --width= --left-column --suppress-common-lines --expand-tabs --initial-tab --show-c-function " +
			"--show-function-line= --text --strip-trailing-cr --minimal --speed-large-files --horizon-lines= --normal --rcs --ed " +
			"--report-identical-files --no-dereference --line-format= --old-line-format= --new-line-format= --unchanged-line-format= " +
			"--old-group-format= --new-group-format= --changed-group-format= --unchanged-group-format= --palette= --tabsize= " +
			"--suppress-blank-empty --starting-file= ; ro",
		"cmp":  "-b -i= -l -n= -s --print-bytes --ignore-initial= --verbose --bytes= --quiet --silent ; max=2 ro",
		"comm": "-1 -2 -3 -z --check-order --nocheck-order --output-delimiter= --total --zero-terminated ; ro",
		"od": "-A= -j= -N= -S= -t= -w[=] -v -a -b -c -d -f -i -l -o -s -x --address-radix= --endian= --skip-bytes= --read-bytes= " +
			"--strings[=] --format= --output-duplicates --width[=] --traditional ; ro",
		"hexdump": "-b -c -C -d -o -x -v -e= -f=r -n= -s= --canonical --length= --skip= --no-squeezing --format= --format-file=r ; ro",
		"xxd":     "-a -b -C -e -E -i -p -u -c= -g= -l= -o= -s= -n= -d -R= -autoskip -bits -capitalize -cols= -groupsize= -len= -name= -offset= -postscript -plain -seek= -uppercase ; max=2 dash ro",
		"strings": "-a -d -f -n= -t= -e= -o -w -s= -T= -U= --all --data --print-file-name --bytes= --radix= --encoding= --include-all-whitespace --output-separator= --target= --unicode= ; ro",
		"md5sum":  sums, "sha1sum": sums, "sha224sum": sums, "sha256sum": sums, "sha384sum": sums, "sha512sum": sums, "b2sum": sums, "cksum": "-a= --algorithm= --base64 --raw --tag --untagged --check --length= -l= ; ro",
		"shasum": "-a= -b -c -p -t -0 -s -w --algorithm= --binary --check --text --portable --01 --tag --ignore-missing --quiet --status --strict --warn ; ro",
		"tac":    "-b -r -s= --before --regex --separator= ; ro",
		"rev":    "; ro",
		"fold":   "-b -s -w= --bytes --spaces --width= ; num ro",
		"fmt":    "-c -p= -s -t -u -w= -g= --crown-margin --prefix= --split-only --tagged-paragraph --uniform-spacing --width= --goal= ; num ro",
		"paste":  "-d= -s -z --delimiters= --serial --zero-terminated ; ro",
		"expand": "-i -t= --initial --tabs= ; ro",
		"column": "-t -s= -o= -c= -x -n -e -N= -R= -J -l= -T= -W= -H= -O= -E= -d -r= -L --table --separator= --output-separator= --output-width= --fillrows --table-columns= --json ; ro",
		"stat":   "-L -f -c= -t --dereference --file-system --format= --printf= --terse --cached= ; ro",
		"file": "-b -c -E -e= -F= -f=L -h -i -k -l -L -m=r -N -n -p -r -s -z -Z -0 -S -P= --mime --mime-type --mime-encoding --brief --dereference " +
			"--no-dereference --keep-going --raw --no-pad --print0 --special-files --uncompress --uncompress-noreport --preserve-date " +
			"--separator= --files-from=L --exclude= --exclude-quiet= --extension --apple --magic-file=r --parameter= ; ro",
		"du": "-0 -a -b -B= -c -d= -D -h -H -k -L -l -m -P -S -s -t= -x -X=r --apparent-size --all --block-size= --bytes --total " +
			"--max-depth= --human-readable --inodes --dereference --dereference-args --count-links --separate-dirs --summarize --threshold= " +
			"--time[=] --time-style= --exclude-from=r --exclude= --one-file-system --files0-from=L --si --null ; cwd ro",
		"df": "-a -B= -h -H -i -k -l -P -t= -T -x= --all --block-size= --human-readable --si --inodes --local --output[=] " +
			"--portability --print-type --type= --exclude-type= --total --sync --no-sync ; pos=v ro",
		"tree": "-a -d -l -f -x -L= -R -P= -I= -i -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -n -C -X -J -S -A -T= -H= " +
			"--gitignore --ignore-case --matchdirs --prune --filelimit= --info --noreport --charset= --si --du --timefmt= --inodes " +
			"--device --dirsfirst --filesfirst --sort= --nolinks -o=w --fromfile --metafirst --hyperlink ; cwd exact ro",
		"realpath": "-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical --quiet --strip --no-symlinks --zero --relative-to=r --relative-base=r ; ro",
		"readlink": "-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero ; ro",
		"basename": "-a -s= -z --multiple --suffix= --zero" + none, "dirname": "-z --zero" + none,
		"jq": "-n -r -j -a -c -s -e -C -M -S -R -h -V -f=P -L=r --arg=vv --argjson=vv --slurpfile=vr --rawfile=vr --args --jsonargs " +
			"--from-file=P --seq --stream --stream-errors --raw-output --raw-output0 --ascii-output --join-output --unbuffered " +
			"--exit-status --null-input --raw-input --slurp --compact-output --sort-keys --color-output --monochrome-output --tab " +
			"--indent= --help --version --build-configuration ; skip=1 exact ro",
		// Programs whose every word is harmless, whatever it expands to.
		"echo": "; any ro", "printf": "; any ro", "true": "; any ro", "false": "; any ro", ":": "; any ro", "sleep": "; any ro",
		"pwd":    "-L -P" + none,
		"whoami": none, "id": "-a -Z -g -G -n -r -u -z --context --group --groups --name --real --user --zero" + none,
		"uname":  "-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release --kernel-version --machine --processor --hardware-platform --operating-system" + none,
		"uptime": "-p -s --pretty --since" + none, "nproc": "--all --ignore=" + none, "arch": none, "groups": none, "tty": "-s --silent --quiet" + none,
		"which": "-a -s" + none, "type": "-a -f -p -P -t" + none, "whereis": "-b -m -s -u -l" + none,
		"test": "; pos=v any ro", "[": "; pos=v any ro", "seq": "-f= -s= -w --format= --separator= --equal-width" + none,
		"date":     "-d= -f=r -I[=] -R -r=r -u --date= --file=r --iso-8601[=] --rfc-email --rfc-3339= --reference=r --utc --universal --debug --resolution" + none,
		"hostname": "-s -f -d -i -I -A --short --fqdn --long --domain --ip-address --all-ip-addresses --all-fqdns ; pos=v ro",
		"ps":       "; any exact ro", "free": "-b -k -m -g -h -l -t -w -s= -c= --bytes --kilo --mega --giga --human --si --lohi --total --wide --seconds= --count=" + none,
		"printenv": "-0 --null" + none, "locale": "-a -m -c -k --all-locales --charmaps --category-name --keyword-name" + none, "getconf": "-a" + none,
		"env": "-0 --null" + none,
		"cd":  "-L -P -e -@" + none, "pushd": "-n" + none, "popd": "-n" + none, "dirs": "-c -l -p -v" + none,
		"unset": "-f -v -n" + none, "shift": none, "read": "-r -s -e -a= -d= -i= -n= -N= -p= -t= -u=" + none, "mapfile": "-d= -n= -O= -s= -t -u=" + none,
		"readarray": "-d= -n= -O= -s= -t -u=" + none, "getopts": none, "wait": "-n -f -p=" + none, "return": none, "exit": none,
		"command": "-v -V -p" + none,
		// xargs: its options, then the command it runs (walked as a command
		// of its own); -a reads the arguments from a file.
		"xargs": "-a=r --arg-file=r -0 --null -d= --delimiter= -E= --eof[=] -e[=] -I= --replace[=] -i[=] -L= --max-lines[=] -l[=] " +
			"-n= --max-args= -P= --max-procs= -p --interactive -r --no-run-if-empty -s= --max-chars= -t --verbose -x --exit " +
			"-o --open-tty --process-slot-var= --show-limits ; pos=v stop ro",
		// npm: the options that change what a script runs with (nopt takes
		// abbreviations); a rule for npm run allows the run, not these.
		"npm": "--script-shell=x --prefix=x --userconfig=x --globalconfig=x --node-options=x --init-module=x --shell=x " +
			"--workspace= -w= --workspaces --if-present --silent -s --quiet -q --loglevel= --ignore-scripts --foreground-scripts " +
			"--yes -y --no --json --color= -g --global ; pos=v",
		"go version": "-m -v ; ro", "go env": "-json -changed ; pos=v dash ro", "go doc": "-all -c -cmd -short -src -u ; pos=v dash ro",
		// Commands that write, for acceptEdits and for what a rule allows.
		"mkdir": "-m= -p -v -Z --mode= --parents --verbose --context[=] ; pos=w edit",
		"touch": "-a -c -d= -f -h -m -r=r -t= --date= --no-create --no-dereference --reference=r --time= ; pos=w edit",
		"rm":    "-f|--force -i -I --interactive[=] -r|-R|--recursive!rec -d|--dir -v|--verbose --one-file-system --no-preserve-root --preserve-root[=] ; pos=w edit",
		"rmdir": "-p -v --ignore-fail-on-non-empty --parents --verbose ; pos=w edit",
		"cp": "-a!rec -b -d -f -i -H -l -L -n -P -p -R!rec -r!rec -s -S= -t=w -T -u -v -x -Z --archive!rec --attributes-only --backup[=] " +
			"--copy-contents --force --interactive --link --dereference --no-clobber --no-dereference --preserve[=] --no-preserve= " +
			"--parents --recursive!rec --reflink[=] --remove-destination --sparse= --strip-trailing-slashes --suffix= --symbolic-link " +
			"--target-directory=w --no-target-directory --update[=] --verbose --one-file-system --context[=] --debug --keep-directory-symlink ; edit",
		"mv": "-b -f -i -n -S= -t=w -T -u -v -Z --backup[=] --force --interactive --no-clobber --strip-trailing-slashes --suffix= " +
			"--target-directory=w --no-target-directory --update[=] --verbose --context --exchange --no-copy --debug ; pos=w edit",
		"sed": "-n -E -r -s -u -z -l= --posix --debug --sandbox --null-data --line-length= --quiet --silent --regexp-extended " +
			"--separate --unbuffered --follow-symlinks -e=p -f=P --expression=p --file=P -i[=]!inplace --in-place[=]!inplace ; skip=1 ro",
		"find": "-name= -iname= -path= -ipath= -regex= -iregex= -type= -xtype= -mtime= -atime= -ctime= -mmin= -amin= -cmin= -used= " +
			"-maxdepth= -mindepth= -newer=r -anewer=r -cnewer=r -samefile=r -size= -perm= -user= -group= -uid= -gid= -links= -inum= " +
			"-empty -readable -writable -executable -print -print0 -printf= -ls -prune -quit -true -false -not -a -and -o -or -depth " +
			"-d -xdev -mount -noleaf -follow -L -H -P -O= -regextype= -daystart -ignore_readdir_race -noignore_readdir_race -nouser " +
			"-nogroup -fstype= -lname= -ilname= -wholename= -iwholename= -context= -newerXY= -fprint=w -fprint0=w -fprintf=wv -fls=w " +
			"-delete!w -exec!x -execdir!x -ok!x -okdir!x -files0-from=L -help -version ; dash cwd ro",
		"go test": "-run= -bench= -benchtime= -benchmem -count= -cover -covermode= -coverpkg= -cpu= -failfast -fullpath -fuzz= " +
			"-fuzztime= -fuzzminimizetime= -json -list= -parallel= -short -shuffle= -skip= -timeout= -v -vet= -race -msan -asan " +
			"-a -n -p= -x -tags= -mod= -modcacherw -trimpath -buildvcs= -work -compiler= -buildmode= -installsuffix= -ldflags= " +
			"-gcflags= -asmflags= -gccgoflags= -linkshared -pgo=r -overlay=r -modfile=r -C=r -o=w -c -i -args -exec=x -toolexec=x " +
			"-coverprofile=w -cpuprofile=w -memprofile=w -memprofilerate= -blockprofile=w -blockprofilerate= -mutexprofile=w " +
			"-mutexprofilefraction= -trace=w -outputdir=w -pkgdir=w ; pos=v dash",
		"go build": "-o=w -a -n -p= -x -v -race -msan -asan -cover -covermode= -coverpkg= -tags= -mod= -modcacherw -trimpath -buildvcs= " +
			"-work -compiler= -buildmode= -installsuffix= -ldflags= -gcflags= -asmflags= -gccgoflags= -linkshared -pgo=r -overlay=r " +
			"-modfile=r -C=r -toolexec=x -pkgdir=w -json ; pos=v dash",
		"go vet": "-n -x -json -c= -tags= -mod= -vettool=x -C=r ; pos=v dash",
		"tee":    "-a|--append -i|--ignore-interrupts -p --output-error[=] ; pos=w",
		"make": "-C=x --directory=x -f=x --file=x --makefile=x --eval=x -E=x -I=r --include-dir=r -j[=] --jobs[=] -k --keep-going " +
			"-s --silent --quiet -n --just-print --dry-run --recon -B --always-make -e --environment-overrides -i --ignore-errors " +
			"-q --question -r --no-builtin-rules -R --no-builtin-variables -S --no-keep-going --stop -t --touch -w --print-directory " +
			"--no-print-directory -W=w --what-if=w --new-file=w --assume-new=w -o=r --old-file=r --assume-old=r -O[=] --output-sync[=] " +
			"-l[=] --load-average[=] -d --debug[=] -p --print-data-base --trace -v --version -h --help --warn-undefined-variables ; pos=v",
		"curl": "-o=w --output=w -O!w --remote-name!w --remote-name-all!w --output-dir=w -J --remote-header-name -T=r --upload-file=r -K=x --config=x " +
			"-c=w --cookie-jar=w -D=w --dump-header=w --trace=w --trace-ascii=w --stderr=w --libcurl=w --etag-save=w --etag-compare=r " +
			"-b= --cookie= -d= --data= --data-binary= --data-raw= --data-ascii= --data-urlencode= --json= -F= --form= --form-string= " +
			"-H= --header= -X= --request= -s --silent -S --show-error -f --fail --fail-with-body -L --location -v --verbose -i --include " +
			"-I --head -k --insecure -m= --max-time= --connect-timeout= -A= --user-agent= -e= --referer= -u= --user= --compressed " +
			"-x= --proxy= --unix-socket=r --abstract-unix-socket= -w= --write-out= --retry= --retry-delay= --retry-max-time= -# --progress-bar " +
			"-N --no-buffer -4 -6 --http1.0 --http1.1 --http2 --http3 -G --get -Z --parallel -q --disable -n --netrc --netrc-file=r " +
			"--netrc-optional -r= --range= -C= --continue-at= --create-dirs --limit-rate= -Y= -y= --cacert=r --capath=r -E= --cert=r --key=r " +
			"--proxy-header= --url-query= --variable= ; pos=n",
		// patch [options] [file [patchfile]]: it writes the file, and the
		// files its patch names, which nova cannot know before it runs.
		"patch": "-i=r --input=r -o=w --output=w -r=w --reject-file=w -p= --strip= -d=r --directory=r -R --reverse -N --forward " +
			"-s --silent --quiet -b --backup -f --force -t --batch -E --remove-empty-files -F= --fuzz= -l --ignore-whitespace --dry-run " +
			"-u --unified -c --context -n --normal -e --ed --verbose --binary -B= --prefix= -z= --suffix= -V= --version-control= " +
			"-Y= --basename-prefix= --merge[=] --posix -T --set-time -Z --set-utc --follow-symlinks --read-only= -D= --ifdef= " +
			"--no-backup-if-mismatch --backup-if-mismatch --reject-format= --quoting-style= ; pos=w",
		"tar":   "; any ro", // what it does is read by tarCheck
		"unzip": "; any ro",
	}
}

// sharedSpecs is the command table, parsed once per process on first use
// and shared read-only by every Checker: parsing it costs ~2 ms and half a
// megabyte, which a Checker per served session would pay again each time
// (issue 27). Nothing changes a spec after commandSpecs returns.
var sharedSpecs = sync.OnceValue(commandSpecs)

// commandSpecs parses the table. An entry that does not parse is a bug
// the table's test catches; at run time that program is simply unknown
// (and asks).
func commandSpecs() map[string]*spec {
	out := map[string]*spec{}
	for name, def := range commandTable() {
		if sp, err := parseSpec(name, def); err == nil {
			out[name] = sp
		}
	}
	for _, t := range []map[string]string{gitTable(), gitWriterTable()} {
		for name, def := range t {
			if sp, err := parseSpec(name, def); err == nil {
				sp.negatable = true
				out[name] = sp
			}
		}
	}
	checks := map[string]func(*Checker, *invocation, []word){
		"sed": sedCheck, "find": findCheck, "uniq": uniqCheck, "xxd": outputFileCheck, "jq": jqCheck, "cp": cpCheck,
		"go doc": goDocCheck, "strings": atFileCheck, "patch": patchCheck, "hostname": noPositional, "date": dateCheck, "make": makeCheck, "curl": curlCheck, "tar": tarCheck, "unzip": unzipCheck, "go test": goBuildCheck, "go build": goBuildCheck, "grep": grepCheck, "egrep": grepCheck, "fgrep": grepCheck,
	}
	for name, f := range checks {
		if sp := out[name]; sp != nil {
			sp.check = f
		}
	}
	addGitChecks(out)
	return out
}

// tableErrors parses every entry and returns what is wrong, for the test
// that keeps the table well-formed.
func tableErrors() []string {
	var errs []string
	for _, t := range []map[string]string{commandTable(), gitTable(), gitWriterTable()} {
		for name, def := range t {
			if _, err := parseSpec(name, def); err != nil {
				errs = append(errs, err.Error())
			}
		}
	}
	sort.Strings(errs)
	return errs
}

// specFor finds the spec of a simple command, with the arguments left for
// it: "go test ./..." looks up "go test".
func (c *Checker) specFor(sc *simpleCmd) (*spec, []word) {
	name := sc.name()
	if name == "" {
		return nil, nil
	}
	args := sc.argv[1:]
	switch name {
	case "go":
		if len(args) > 0 && !args[0].dyn {
			if sp := c.specs["go "+args[0].val]; sp != nil {
				return sp, args[1:]
			}
		}
		return nil, nil
	}
	if name == "find" {
		return c.specs[name], stripFindPayloads(args)
	}
	return c.specs[name], args
}

// stripFindPayloads leaves -exec and its kin in find's arguments but takes
// out the command they run (up to ; or +), which is walked as a command of
// its own.
func stripFindPayloads(args []word) []word {
	out := make([]word, 0, len(args))
	for i := 0; i < len(args); i++ {
		out = append(out, args[i])
		switch args[i].val {
		case "-exec", "-execdir", "-ok", "-okdir":
			for i+1 < len(args) && args[i+1].val != ";" && args[i+1].val != "+" {
				i++
			}
			i++ // the terminator
		}
	}
	return out
}

// grepCheck: --directories=recurse and -d recurse read recursively, and
// a recursive grep given no file reads the current directory.
func grepCheck(_ *Checker, inv *invocation, args []word) {
	for i, a := range args {
		if a.val == "--directories=recurse" || (a.val == "-d" || a.val == "--directories") && i+1 < len(args) && args[i+1].val == "recurse" {
			inv.tree = true
		}
	}
	if inv.tree && len(inv.files) == 0 {
		inv.reads = append(inv.reads, word{val: "."})
	}
}

// makeCheck: make VAR=value overrides what the recipes run (CC=evil).
func makeCheck(_ *Checker, inv *invocation, _ []word) {
	for _, p := range inv.pos {
		if p.dyn || strings.Contains(p.val, "=") {
			inv.execs = append(inv.execs, word{val: "the variable " + p.val})
		}
	}
}

// curlCheck: @file values of curl's data, form, header, write-out and
// query options read the file, and a --cookie value without '=' is a
// cookie file it reads.
func curlCheck(_ *Checker, inv *invocation, args []word) {
	for i, a := range args {
		opt, val, glued := strings.Cut(a.val, "=")
		if !glued && i+1 < len(args) {
			val = args[i+1].val
		}
		switch opt {
		case "-H", "--header", "--proxy-header", "-w", "--write-out":
			if f, ok := strings.CutPrefix(val, "@"); ok && f != "" {
				inv.reads = append(inv.reads, word{val: f})
			}
			continue
		case "-b", "--cookie":
			if val != "" && !strings.Contains(val, "=") {
				inv.reads = append(inv.reads, word{val: val})
			}
			continue
		case "--url-query", "--variable":
			if _, f, ok := strings.Cut(val, "@"); ok && f != "" {
				inv.reads = append(inv.reads, word{val: f})
			}
			continue
		}
		switch opt {
		case "-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode", "--json", "-F", "--form", "-T":
			if _, f, ok := strings.Cut(val, "@"); ok && f != "" {
				f, _, _ = strings.Cut(f, ";")
				inv.reads = append(inv.reads, word{val: f})
			} else if _, f, ok := strings.Cut(val, "<"); ok && f != "" && (opt == "-F" || opt == "--form") {
				inv.reads = append(inv.reads, word{val: f})
			}
		}
	}
}

// tarCheck reads tar's mode from its first word (tar xf a.tar) or its
// options: extracting writes members nova cannot know below the
// directory (-C, or the current one); creating writes the archive and
// reads what it packs.
func tarCheck(_ *Checker, inv *invocation, args []word) {
	mode, archive, dir := "", word{}, word{val: "."}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.dyn:
			inv.unknown = a.val + " (only known at run time)"
		case i == 0 && !strings.HasPrefix(a.val, "-"):
			mode = string(a.val[0])
			if strings.Contains(a.val, "f") && i+1 < len(args) {
				archive = args[i+1]
				i++
			}
		case a.val == "-x" || a.val == "--extract" || a.val == "--get" || strings.HasPrefix(a.val, "-x"):
			mode = "x"
		case a.val == "-c" || a.val == "--create" || strings.HasPrefix(a.val, "-c"):
			mode = "c"
		case a.val == "-t" || a.val == "--list" || strings.HasPrefix(a.val, "-t"):
			mode = "t"
		case a.val == "-C" || a.val == "--directory":
			if i+1 < len(args) {
				dir = args[i+1]
				i++
			}
		case strings.HasPrefix(a.val, "--directory="):
			dir = word{val: strings.TrimPrefix(a.val, "--directory=")}
		case a.val == "-f" || a.val == "--file":
			if i+1 < len(args) {
				archive = args[i+1]
				i++
			}
		case strings.HasPrefix(a.val, "--file="):
			archive = word{val: strings.TrimPrefix(a.val, "--file=")}
		case (a.val == "-T" || a.val == "--files-from" || a.val == "-X" || a.val == "--exclude-from") && i+1 < len(args):
			// A list of names tar reads (and names back when one is
			// missing): a read of that file whatever the mode.
			inv.reads = append(inv.reads, args[i+1])
			i++
		case strings.HasPrefix(a.val, "--files-from=") || strings.HasPrefix(a.val, "--exclude-from="):
			_, f, _ := strings.Cut(a.val, "=")
			inv.reads = append(inv.reads, word{val: f})
		case strings.HasPrefix(a.val, "--to-command") || strings.HasPrefix(a.val, "--use-compress-program") || a.val == "-I" ||
			strings.HasPrefix(a.val, "--checkpoint-action") || strings.HasPrefix(a.val, "--rsh-command") || strings.HasPrefix(a.val, "--info-script") || a.val == "-F":
			inv.execs = append(inv.execs, a)
		}
		if strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && len(a.val) > 2 && strings.ContainsAny(a.val[1:], "xct") && strings.Contains(a.val, "f") && i+1 < len(args) {
			if archive.val == "" {
				archive = args[i+1]
				i++
			}
		}
	}
	switch mode {
	case "x":
		inv.writes = append(inv.writes, dir)
		inv.rec = true
		inv.effect = "tar extracts files nova cannot list before it runs"
	case "c", "r", "u", "A":
		inv.writes = append(inv.writes, archive)
		inv.reads = append(inv.reads, inv.pos...)
		inv.tree = true
	case "t":
		inv.reads = append(inv.reads, archive)
	default:
		inv.effect = "a tar command nova cannot read"
	}
}

// unzipCheck: unzip writes members nova cannot know below its -d
// directory (or the current one); -l, -t, -v and -Z only list.
func unzipCheck(_ *Checker, inv *invocation, args []word) {
	dir, listing := word{val: "."}, false
	for i, a := range args {
		switch {
		case a.val == "-d" && i+1 < len(args):
			dir = args[i+1]
		case strings.HasPrefix(a.val, "-d") && len(a.val) > 2:
			dir = word{val: a.val[2:]}
		case a.val == "-l" || a.val == "-t" || a.val == "-v" || a.val == "-Z" || a.val == "-p":
			listing = true
		}
	}
	if listing {
		return
	}
	inv.writes = append(inv.writes, dir)
	inv.rec = true
	inv.effect = "unzip extracts files nova cannot list before it runs"
}

// atFileCheck: a word @FILE is a response file the program reads its
// options from (binutils' strings): a read of FILE.
func atFileCheck(_ *Checker, inv *invocation, _ []word) {
	for _, p := range inv.pos {
		if f, ok := strings.CutPrefix(p.val, "@"); ok && f != "" {
			inv.reads = append(dropWords(inv.reads, []word{p}), word{val: f, dyn: p.dyn})
		}
	}
}

// patchCheck: patch's second positional word is the patch it reads; the
// files the patch names are written too, which nova cannot list.
func patchCheck(_ *Checker, inv *invocation, _ []word) {
	if len(inv.pos) >= 2 {
		inv.writes = dropWords(inv.writes, inv.pos[1:2])
		inv.reads = append(inv.reads, inv.pos[1])
	}
	inv.effect = "patch writes the files its patch names, which nova cannot list before it runs"
}

// uniqCheck: uniq's second file is its output.
func uniqCheck(_ *Checker, inv *invocation, _ []word) { outputFileCheck(nil, inv, nil) }

// outputFileCheck: a second positional file is written (uniq IN OUT, xxd IN OUT).
func outputFileCheck(_ *Checker, inv *invocation, _ []word) {
	if len(inv.pos) >= 2 {
		out := inv.pos[1]
		inv.writes = append(inv.writes, out)
		for i, r := range inv.reads {
			if r == out {
				inv.reads = append(inv.reads[:i], inv.reads[i+1:]...)
				break
			}
		}
	}
}

// cpCheck: cp reads every file but the last, which it writes (or, with
// -t, writes into the target directory).
func cpCheck(_ *Checker, inv *invocation, args []word) {
	hasTarget := false
	for _, a := range args {
		if a.val == "-t" || strings.HasPrefix(a.val, "--target-directory") || strings.HasPrefix(a.val, "-t") && len(a.val) > 2 && !strings.HasPrefix(a.val, "--") {
			hasTarget = true
		}
	}
	if inv.rec {
		inv.tree = true // cp -r reads everything below its sources
	}
	if hasTarget || len(inv.pos) < 2 {
		return
	}
	last := inv.pos[len(inv.pos)-1]
	for i, r := range inv.reads {
		if r == last {
			inv.reads = append(inv.reads[:i], inv.reads[i+1:]...)
			break
		}
	}
	inv.writes = append(inv.writes, last)
}

// jqCheck: a jq program can import modules from its library path (any
// JSON file), and with --args the words after the program are values.
func jqCheck(_ *Checker, inv *invocation, args []word) {
	prog := inv.patterns
	if len(prog) == 0 && len(inv.pos) > 0 && !inv.markSeen("P") {
		prog = inv.pos[:1]
	}
	for _, p := range prog {
		if p.dyn || strings.Contains(p.val, "import") || strings.Contains(p.val, "include") {
			inv.effect = "the jq program imports modules, which can read any file"
		}
	}
	for _, a := range args {
		if a.val == "--args" || a.val == "--jsonargs" {
			inv.reads = dropWords(inv.reads, inv.pos)
		}
	}
}

// dropWords returns list without the words of drop.
func dropWords(list, drop []word) []word {
	var out []word
	for _, w := range list {
		keep := true
		for _, d := range drop {
			if w == d {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, w)
		}
	}
	return out
}

// noPositional: the program changes something when given a word
// (hostname NAME sets the host name).
func noPositional(_ *Checker, inv *invocation, _ []word) {
	if len(inv.pos) > 0 {
		inv.effect = inv.spec.name + " " + inv.pos[0].val + " changes the system"
	}
}

// goDocCheck: go doc of a directory path reads it.
func goDocCheck(_ *Checker, inv *invocation, _ []word) {
	for _, a := range inv.pos {
		if a.dyn || strings.HasPrefix(a.val, ".") || strings.HasPrefix(a.val, "/") || strings.HasPrefix(a.val, "~") {
			inv.reads = append(inv.reads, a)
		}
	}
}

// goBuildCheck: linker and compiler flags can name programs to run, and
// the test binary's own flags after -args write profiles and logs.
func goBuildCheck(_ *Checker, inv *invocation, args []word) {
	for i, a := range args {
		if a.val == "-args" || a.val == "--args" {
			for j := i + 1; j < len(args); j++ {
				name, val, glued := strings.Cut(strings.TrimLeft(args[j].val, "-"), "=")
				switch strings.TrimPrefix(name, "test.") {
				case "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "coverprofile", "outputdir", "testlogfile", "gocoverdir", "fuzzcachedir":
					if !glued && j+1 < len(args) {
						val = args[j+1].val
					}
					inv.writes = append(inv.writes, word{val: val, dyn: args[j].dyn})
				}
			}
			break
		}
	}
	for _, a := range args {
		v := a.val
		if strings.Contains(v, "-extld") || strings.Contains(v, "-toolexec") || strings.Contains(v, "-exec") && strings.HasPrefix(v, "-gcflags") {
			inv.execs = append(inv.execs, word{val: fmt.Sprintf("the program %s names", shorten(v))})
		}
	}
}
