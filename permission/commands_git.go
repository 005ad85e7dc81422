package permission

import (
	"strings"
)

// gitGlobal are git's options before the subcommand.
const gitGlobal = "-C=r -c=v!cfg --exec-path[=]!x --git-dir=r --work-tree=r --namespace= --super-prefix= --config-env=v!cfg " +
	"--bare --no-pager --paginate!x -p!x --no-replace-objects --no-lazy-fetch --literal-pathspecs --glob-pathspecs --noglob-pathspecs " +
	"--icase-pathspecs --no-optional-locks --no-advice --list-cmds= --html-path --man-path --info-path --version --help -v -h " +
	"--attr-source= ; pos=v"

// gitDiffOpts are the options every diff-producing git command takes.
const gitDiffOpts = "-p -u --patch -s --no-patch -U= --unified= --output=w --output-indicator-new= --output-indicator-old= " +
	"--output-indicator-context= --raw --patch-with-raw -t --indent-heuristic --minimal --patience --histogram --anchored= " +
	"--diff-algorithm= --stat[=] --stat-width= --stat-name-width= --stat-graph-width= --stat-count= --compact-summary --numstat " +
	"--shortstat -X[=] --dirstat[=] --cumulative --dirstat-by-file[=] --summary --patch-with-stat -z --name-only --name-status " +
	"--submodule[=] --color[=] --color-moved[=] --color-moved-ws= --word-diff[=] --word-diff-regex= --color-words[=] --renames " +
	"--rename-empty --check --ws-error-highlight= --full-index --binary --abbrev[=] -B[=] --break-rewrites[=] -M[=] " +
	"--find-renames[=] -C[=] --find-copies[=] --find-copies-harder -D --irreversible-delete -l= --diff-filter= -S= -G= " +
	"--find-object= --pickaxe-all --pickaxe-regex -O=r -R --relative[=] -a --text --ignore-cr-at-eol --ignore-space-at-eol -b " +
	"--ignore-space-change -w --ignore-all-space --ignore-blank-lines -I= --ignore-matching-lines= --inter-hunk-context= -W " +
	"--function-context --exit-code --quiet --ext-diff!x --textconv --ignore-submodules[=] --src-prefix= --dst-prefix= " +
	"--prefix --default-prefix --line-prefix= --ita-invisible-in-index --ita-visible-in-index --cc -c -m --diff-merges= " +
	"--dd --remerge-diff --combined-all-paths --color-moved --mailmap --use-mailmap "

// gitLogOpts are the options of the log family (log, show, shortlog, rev-list).
const gitLogOpts = "--follow --decorate[=] --decorate-refs= --decorate-refs-exclude= --source --full-diff --log-size -L= -n= " +
	"--max-count= --skip= --since= --after= --until= --before= --since-as-filter= --author= --committer= --grep-reflog= " +
	"--grep= --all-match --invert-grep -i --regexp-ignore-case --basic-regexp -E --extended-regexp -F --fixed-strings -P " +
	"--perl-regexp --remove-empty --merges --min-parents= --max-parents= --first-parent --exclude-first-parent-only --not " +
	"--all --branches[=] --tags[=] --remotes[=] --glob= --exclude= --exclude-hidden= --reflog --alternate-refs " +
	"--single-worktree --ignore-missing --bisect --stdin --cherry-mark --cherry-pick --left-only --right-only --cherry -g " +
	"--walk-reflogs --merge --boundary --simplify-by-decoration --show-pulls --full-history --dense --sparse " +
	"--simplify-merges --ancestry-path[=] --date-order --author-date-order --topo-order --reverse --walk[=] --do-walk " +
	"--pretty[=] --format= --abbrev-commit --oneline --encoding= --expand-tabs[=] --notes[=] --show-notes[=] " +
	"--standard-notes --show-signature --relative-date --date= --parents --children --left-right --graph " +
	"--show-linear-break[=] --count --in-commit-order --objects --objects-edge --unpacked --filter= --no-walk[=] " +
	"--clear-decorations --show-notes-by-default --max-age= --min-age= --header --timestamp "

// gitTable is the accept-list of git subcommands that only read, in
// commandTable's syntax; "git stash show" is a subcommand of a subcommand.
func gitTable() map[string]string {
	tree := "; pos=v num tree ro"
	return map[string]string{
		"git":                gitGlobal,
		"git status":         "-s --short -b --branch --show-stash --porcelain[=] --long -v --verbose -u[=] --untracked-files[=] --ignore-submodules[=] --ignored[=] -z --column[=] --ahead-behind --renames --find-renames[=] ; pos=v ro",
		"git diff":           gitDiffOpts + "--cached --staged --merge-base --no-index!noindex -1 -2 -3 -0 --base --ours --theirs" + tree,
		"git diff-tree":      gitDiffOpts + "-r --root --merge-base --stdin --no-commit-id --always -v" + tree,
		"git diff-files":     gitDiffOpts + "-1 -2 -3 -0 --base --ours --theirs -q" + tree,
		"git diff-index":     gitDiffOpts + "--cached --merge-base -m" + tree,
		"git log":            gitDiffOpts + gitLogOpts + "; pos=v num ro",
		"git whatchanged":    gitDiffOpts + gitLogOpts + "; pos=v num ro",
		"git show":           gitDiffOpts + gitLogOpts + tree,
		"git shortlog":       gitLogOpts + "-n --numbered -s --summary -e --email --group= -c --committer -w[=]" + tree,
		"git rev-list":       gitLogOpts + "--quiet --disk-usage[=] --missing= --exclude-promisor-objects --objects-edge-aggressive --indexed-objects --no-object-names --object-names --use-bitmap-index --progress= --max-age= --min-age= --timestamp" + tree,
		"git rev-parse":      "--parseopt --sq-quote --keep-dashdash --stop-at-non-option --stuck-long --revs-only --no-revs --flags --no-flags --default= --prefix= --verify -q --quiet --sq --short[=] --not --abbrev-ref[=] --symbolic --symbolic-full-name --all --branches[=] --tags[=] --remotes[=] --glob= --exclude= --exclude-hidden= --disambiguate= --local-env-vars --path-format= --git-dir --git-common-dir --resolve-git-dir= --git-path= --show-toplevel --show-superproject-working-tree --shared-index-path --absolute-git-dir --is-inside-git-dir --is-inside-work-tree --is-bare-repository --is-shallow-repository --show-cdup --show-prefix --show-object-format[=] --show-ref-format --since= --after= --until= --before= --end-of-options ; pos=v ro",
		"git ls-files":       "-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged -k --killed --directory --empty-directory --eol -z --deduplicate -x= --exclude= -X=r --exclude-from=r --exclude-per-directory= --exclude-standard --error-unmatch --with-tree= -t -v -f --full-name --recurse-submodules --abbrev[=] --debug --format= --sparse ; pos=v ro",
		"git ls-tree":        "-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree --abbrev[=] --format= ; pos=v ro",
		"git cat-file":       "-t -s -e -p --textconv --filters --path= --batch[=] --batch-check[=] --batch-command[=] --batch-all-objects --buffer --follow-symlinks --unordered -Z --allow-unknown-type --mailmap --use-mailmap" + tree,
		"git blame":          "-b --root --show-stats -L= -l -t -S=r --reverse= --first-parent -p --porcelain --line-porcelain --incremental --encoding= --contents=r --date= --progress -M[=] -C[=] --ignore-rev= --ignore-revs-file=r --color-lines --color-by-age -h -c --score-debug -f --show-name -n --show-number -s -e --show-email -w --abbrev[=]" + tree,
		"git annotate":       "-b --root --show-stats -L= -l -t -S=r --reverse= --encoding= --contents=r --date= -M[=] -C[=] --ignore-rev= --ignore-revs-file=r" + tree,
		"git describe":       "--dirty[=] --broken[=] --all --tags --contains --abbrev= --candidates= --exact-match --debug --long --match= --exclude= --always --first-parent ; pos=v ro",
		"git grep":           "--cached --untracked --no-index!noindex --exclude-standard --recurse-submodules -a --text --textconv -i --ignore-case -I --max-depth= -r --recursive -w --word-regexp -v --invert-match -h -H --full-name -E --extended-regexp -G --basic-regexp -P --perl-regexp -F --fixed-strings -n --line-number --column -l --files-with-matches --name-only -L --files-without-match -O[=]!x --open-files-in-pager[=]!x -z --null -o --only-matching -c --count --color[=] --break --heading -p --show-function -A= -B= -C= -W --function-context -m= --max-count= --threads= -f=P -e=p --and --or --not --all-match -q --quiet ; pos=v skip=1 num tree ro",
		"git merge-base":     "-a --all --octopus --independent --is-ancestor --fork-point ; pos=v ro",
		"git name-rev":       "--tags --refs= --exclude= --all --stdin --annotate-stdin --name-only --undefined --always ; pos=v ro",
		"git for-each-ref":   "--count= --shell --perl --python --tcl --sort= --format= --color[=] --points-at= --merged[=] --no-merged[=] --contains[=] --no-contains[=] --ignore-case --omit-empty --exclude= --stdin --include-root-refs ; pos=v ro",
		"git count-objects":  "-v --verbose -H --human-readable ; pos=v ro",
		"git check-ignore":   "-q --quiet -v --verbose --stdin -z -n --non-matching --index ; pos=v ro",
		"git check-attr":     "-a --all --cached --stdin -z --source= ; pos=v ro",
		"git version":        "--build-options ; pos=v ro",
		"git show-ref":       "--head --branches --heads --tags -d --dereference -s --hash[=] --abbrev[=] --verify -q --quiet --exclude-existing[=] --exists ; pos=v ro",
		"git var":            "-l ; pos=v ro",
		"git cherry":         "-v --abbrev[=] ; pos=v ro",
		"git branch":         "-a --all -r --remotes --list -l -v --verbose -q --quiet --color[=] --column[=] --sort= --merged[=] --no-merged[=] --contains[=] --no-contains[=] --points-at= --format= --abbrev[=] -i --ignore-case --omit-empty --show-current ; pos=v ro",
		"git tag":            "-a --annotate -s --sign -u= --local-user= -f --force -d --delete -v --verify -m= --message= -F=r --file=r -e --edit --cleanup= --create-reflog --trailer= -l --list -n[=] --sort= --contains[=] --no-contains[=] --merged[=] --no-merged[=] --points-at= --column[=] --format= --color[=] -i --ignore-case --omit-empty ; pos=v ro",
		"git remote":         "-v --verbose ; pos=v ro",
		"git remote get-url": "--push --all ; pos=v ro",
		"git remote show":    "-n ; pos=v ro",
		"git config":         "--global --system --local --worktree --file=r -f=r --blob= --get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool --list -l --show-origin --show-scope --name-only --null -z --type= --bool --int --bool-or-int --path --expiry-date --default= --includes --fixed-value --all --regexp --url= --value= ; pos=v ro",
		"git stash list":     gitLogOpts + "; pos=v ro",
		"git stash show":     gitDiffOpts + "--include-untracked --only-untracked" + tree,
		"git reflog":         gitLogOpts + "; pos=v ro",
		"git reflog show":    gitLogOpts + "; pos=v ro",
		"git reflog exists":  "; pos=v ro",
		"git worktree list":  "--porcelain -v --verbose -z --expire= ; pos=v ro",
	}
}

// gitWriterTable lists git subcommands that change the repository. None is
// read-only (each asks unless a rule or a mode allows it); they are listed
// for the files their options read: a commit message file (-F, --file,
// --template), a pathspec file (--pathspec-from-file), a patch. A rule
// that allows the command does not allow those reads outside the
// workspace, and a Read deny rule holds for them. Positional words are
// pathspecs and revisions (git refuses paths outside the repository),
// except the patches git apply and git am read and the files git
// hash-object reads. The options are git's own (git SUB -h), so that a
// value is never taken for an option or the reverse.
func gitWriterTable() map[string]string {
	return map[string]string{
		"git commit": "-q --quiet -v --verbose -F=r --file=r --author= --date= -m= --message= -c= --reedit-message= -C= --reuse-message= " +
			"--fixup= --squash= --reset-author --trailer= -s --signoff -t=r --template=r -e --edit --cleanup= --status -S[=] --gpg-sign[=] " +
			"-a --all -i --include --interactive -p --patch -o --only -n --no-verify --verify --dry-run --short --branch --ahead-behind " +
			"--porcelain --long -z --null --amend --no-post-rewrite -u[=] --untracked-files[=] --pathspec-from-file=r --pathspec-file-nul " +
			"--allow-empty --allow-empty-message ; pos=v",
		"git notes add":    "-m= --message= -F=r --file=r -c= --reedit-message= -C= --reuse-message= --allow-empty -f --force ; pos=v",
		"git notes append": "-m= --message= -F=r --file=r -c= --reedit-message= -C= --reuse-message= --allow-empty ; pos=v",
		"git merge": "-n --stat --summary --log[=] --squash --commit -e --edit --cleanup= --ff --ff-only --rerere-autoupdate " +
			"--verify-signatures -s= --strategy= -X= --strategy-option= -m= --message= -F=r --file=r --into-name= -v --verbose -q --quiet " +
			"--abort --quit --continue --allow-unrelated-histories --progress -S[=] --gpg-sign[=] --autostash --overwrite-ignore --signoff --verify ; pos=v",
		"git commit-tree": "-p= -m= -F=r -S[=] --gpg-sign[=] ; pos=v",
		"git add": "-n --dry-run -v --verbose -i --interactive -p --patch -e --edit -f --force -u --update --renormalize -N --intent-to-add " +
			"-A --all --ignore-removal --refresh --ignore-errors --ignore-missing --sparse --chmod= --pathspec-from-file=r --pathspec-file-nul ; pos=v",
		"git rm":    "-n --dry-run -q --quiet --cached -f --force -r --ignore-unmatch --sparse --pathspec-from-file=r --pathspec-file-nul ; pos=v",
		"git reset": "-q --quiet --refresh --mixed --soft --hard --merge --keep --recurse-submodules[=] -p --patch -N --intent-to-add --pathspec-from-file=r --pathspec-file-nul ; pos=v",
		"git restore": "-s= --source= -S --staged -W --worktree --ignore-unmerged --overlay -q --quiet --recurse-submodules[=] --progress -m --merge " +
			"--conflict= -2 --ours -3 --theirs -p --patch --ignore-skip-worktree-bits --pathspec-from-file=r --pathspec-file-nul ; pos=v",
		"git checkout": "-b= -B= -l --guess --overlay -q --quiet --recurse-submodules[=] --progress -m --merge --conflict= -d --detach -t[=] --track[=] " +
			"-f --force --orphan= --overwrite-ignore --ignore-other-worktrees -2 --ours -3 --theirs -p --patch --ignore-skip-worktree-bits " +
			"--pathspec-from-file=r --pathspec-file-nul ; pos=v",
		"git stash push": "-k --keep-index -S --staged -p --patch -q --quiet -u --include-untracked -a --all -m= --message= --pathspec-from-file=r --pathspec-file-nul ; pos=v",
		"git apply": "--exclude= --include= -p= --add --stat --numstat --summary --check --index -N --intent-to-add --cached --unsafe-paths --apply " +
			"-3 --3way --build-fake-ancestor=w -z -C= --whitespace= --ignore-space-change --ignore-whitespace -R --reverse --unidiff-zero --reject " +
			"--allow-overlap -v --verbose -q --quiet --inaccurate-eof --recount --directory= --allow-empty",
		"git am": "-i --interactive -3 --3way -q --quiet -s --signoff -u --utf8 -k --keep --keep-non-patch -m --message-id --keep-cr -c --scissors " +
			"--quoted-cr= --whitespace= --ignore-space-change --ignore-whitespace --directory= --exclude= --include= -C= -p= --patch-format= --reject " +
			"--resolvemsg= --continue -r --resolved --skip --abort --quit --show-current-patch[=] --allow-empty --committer-date-is-author-date " +
			"--ignore-date --rerere-autoupdate -S[=] --gpg-sign[=] --empty=",
		"git clone": "-v --verbose -q --quiet --progress --reject-shallow -n --no-checkout --checkout --bare --mirror -l --local --hardlinks " +
			"-s --shared --recurse-submodules[=] --recursive[=] -j= --jobs= --template=x --reference=r --reference-if-able=r --dissociate " +
			"-o= --origin= -b= --branch= --revision= -u=x --upload-pack=x --depth= --shallow-since= --shallow-exclude= --single-branch --tags " +
			"--shallow-submodules --separate-git-dir=w -c=v!cfg --config=v!cfg --server-option= -4 --ipv4 -6 --ipv6 --filter= " +
			"--also-filter-submodules --remote-submodules --sparse --bundle-uri= --ref-format= ; pos=v",
		"git init":        "--template=x --bare --shared[=] -q --quiet --separate-git-dir=w -b= --initial-branch= --object-format= --ref-format= ; pos=w",
		"git hash-object": "-t= -w --stdin --stdin-paths --filters --literally --path=",
		"git format-patch": gitDiffOpts + gitLogOpts + "-n --numbered -N --no-numbered -s --signoff --stdout --cover-letter --numbered-files " +
			"--suffix= --start-number= -v= --reroll-count= --filename-max-length= --rfc --cover-from-description= --subject-prefix= -o=w " +
			"--output-directory=w -k --keep-subject --binary --zero-commit --ignore-if-in-upstream -p --stat --add-header= --to= --cc= " +
			"--from[=] --in-reply-to= --attach[=] --inline[=] --thread[=] --signature= --base= --signature-file=r -q --quiet --progress " +
			"--interdiff= --range-diff= --creation-factor= --force-in-body-from ; pos=v",
	}
}

// addGitChecks attaches what git's table cannot say.
func addGitChecks(specs map[string]*spec) {
	listing := func(flags ...string) func(*Checker, *invocation, []word) {
		return func(_ *Checker, inv *invocation, args []word) {
			if len(inv.pos) == 0 {
				return
			}
			for _, a := range args {
				for _, f := range flags {
					if a.val == f || strings.HasPrefix(a.val, f+"=") {
						return // the words are patterns to list
					}
				}
			}
			inv.effect = "git " + inv.spec.name[len("git "):] + " " + inv.pos[0].val + " creates or changes a ref"
		}
	}
	set := func(name string, f func(*Checker, *invocation, []word)) {
		if sp := specs[name]; sp != nil {
			sp.check = f
		}
	}
	// git log prints file contents only with a patch.
	patch := func(_ *Checker, inv *invocation, args []word) {
		for _, a := range args {
			switch strings.SplitN(a.val, "=", 2)[0] {
			case "-p", "-u", "--patch", "-U", "--unified", "--word-diff", "--color-words", "-L", "--cc", "-c", "-m", "--remerge-diff", "--full-diff", "--patch-with-stat", "--patch-with-raw":
				inv.tree = true
			}
			if strings.HasPrefix(a.val, "-U") || strings.HasPrefix(a.val, "-L") {
				inv.tree = true
			}
		}
	}
	// git clone reads the repository it copies when that is a path (not
	// a URL, not host:path) and writes the directory it makes.
	set("git clone", func(_ *Checker, inv *invocation, _ []word) {
		if len(inv.pos) == 0 {
			return
		}
		if src := inv.pos[0]; src.dyn || !strings.Contains(src.val, "://") && !scpLike(src.val) {
			inv.reads = append(inv.reads, src)
			inv.tree = true
		}
		if len(inv.pos) > 1 {
			inv.writes = append(inv.writes, inv.pos[1])
		}
	})
	set("git reflog", func(_ *Checker, inv *invocation, _ []word) {
		if len(inv.pos) > 0 {
			switch inv.pos[0].val {
			case "expire", "delete", "drop", "write":
				inv.effect = "git reflog " + inv.pos[0].val + " changes the reflog"
			}
		}
	})
	set("git log", patch)
	set("git whatchanged", patch)
	set("git branch", listing("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-a", "--all", "-r", "--remotes"))
	set("git tag", listing("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-n"))
	set("git remote", func(_ *Checker, inv *invocation, _ []word) {
		if len(inv.pos) > 0 {
			inv.effect = "git remote " + inv.pos[0].val + " changes the repository's remotes"
		}
	})
	set("git remote show", func(_ *Checker, inv *invocation, args []word) {
		for _, a := range args {
			if a.val == "-n" {
				return
			}
		}
		inv.net = "git remote show asks the remote (add -n to stay local)"
	})
	set("git config", func(_ *Checker, inv *invocation, args []word) {
		getting := false
		for _, a := range args {
			switch strings.SplitN(a.val, "=", 2)[0] {
			case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--list", "-l":
				getting = true
			}
		}
		switch {
		case len(inv.pos) > 0 && (inv.pos[0].val == "get" || inv.pos[0].val == "list"):
		case getting && len(inv.pos) <= 2:
		case !getting && len(inv.pos) == 1 && !inv.pos[0].dyn && strings.Contains(inv.pos[0].val, "."):
			// git config NAME prints the value.
		default:
			inv.effect = "git config sets configuration"
		}
	})
}

// scpLike reports whether a git repository argument is host:path, git's
// scp-like syntax for ssh: a colon before the first slash.
func scpLike(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.Contains(s[:i], "/")
}

// gitConfigSets returns the KEY=VALUE settings a git command writes: git
// config KEY VALUE (and set, --add, --replace-all), git clone -c; edit
// says it opens the configuration in an editor, where any key may be set.
func gitConfigSets(inv *invocation, writes bool, args []word) (sets []word, edit bool) {
	sets = append(sets, inv.cfgs...)
	if !writes || inv.spec.name != "git config" {
		return sets, false
	}
	for _, a := range args {
		if a.val == "-e" || a.val == "--edit" {
			return sets, true
		}
	}
	pos := inv.pos
	if len(pos) > 0 && !pos[0].dyn {
		switch pos[0].val {
		case "edit":
			return sets, true
		case "set":
			pos = pos[1:]
		case "get", "list", "unset", "remove-section", "rename-section":
			return sets, false
		}
	}
	if len(pos) == 0 {
		return sets, false
	}
	// git config stops reading options at the key: the value is the next
	// word, whatever it looks like (alias.l '-c core.pager=x log').
	key := pos[0]
	for i := 0; i+1 < len(args); i++ {
		if args[i] == key {
			v := args[i+1]
			sets = append(sets, word{val: key.val + "=" + v.val, dyn: key.dyn || v.dyn})
			break
		}
	}
	return sets, false
}

// gitConfigValues judges the configuration a git command writes: a key
// that is not plain data (plainGitKey) names a program or a path git runs
// or reads later, which no rule for the command covers (it asks unless
// bypassPermissions), and a path key is a write of the path it names.
func (c *Checker) gitConfigValues(bc *bashCmd, writes bool) {
	sets, edit := gitConfigSets(bc.inv, writes, bc.sc.argv)
	if edit {
		bc.inv.execs = append(bc.inv.execs, word{val: "an editor on git's configuration (any key, a program included)"})
	}
	for _, kv := range sets {
		key, val, _ := strings.Cut(kv.val, "=")
		if !kv.dyn && plainGitKey(key, val) {
			continue
		}
		bc.inv.execs = append(bc.inv.execs, word{val: "what the git setting " + key + " names (" + shorten(val) + "), later"})
		if gitPathKey(key) && val != "" && !kv.dyn {
			for _, acc := range c.wordAccesses(word{val: val}, bc.sc.cwd, true) {
				acc.tree = true
				bc.accs = append(bc.accs, acc)
			}
		}
	}
}

// gitInvocation reads a git command line: the global options, then the
// subcommand (and its own subcommand: stash show), each against its
// table entry. It returns nil for a subcommand nova does not know.
func (c *Checker) gitInvocation(args []word) *invocation {
	g := c.specs["git"]
	// The global options end at the first word that is not one of them.
	k := 0
	for k < len(args) {
		a := args[k]
		if a.dyn || !strings.HasPrefix(a.val, "-") || a.val == "-" {
			break
		}
		k++
		if strings.Contains(a.val, "=") {
			continue
		}
		if o, ok := g.short[strings.TrimPrefix(a.val, "-")[0]]; ok && len(a.val) == 2 && len(o.vals) > 0 {
			k++
		} else if o, ok := g.lookupLong(strings.TrimPrefix(a.val, "--")); ok && strings.HasPrefix(a.val, "--") && len(o.vals) > 0 && !o.optional {
			k++
		}
	}
	if k > len(args) {
		k = len(args)
	}
	global := c.parseArgs(g, args[:k])
	rest := args[k:]
	if len(rest) == 0 || rest[0].dyn {
		return nil // the subcommand is only known at run time, or none
	}
	name := "git " + rest[0].val
	sp := c.specs[name]
	sub := rest[1:]
	if len(sub) > 0 && !sub[0].dyn {
		if deeper := c.specs[name+" "+sub[0].val]; deeper != nil {
			sp, sub = deeper, sub[1:]
		}
	}
	if sp == nil {
		return nil
	}
	inv := c.parseArgs(sp, sub)
	inv.reads = append(inv.reads, global.reads...)
	inv.execs = append(inv.execs, global.execs...)
	if global.unknown != "" && inv.unknown == "" {
		inv.unknown = global.unknown
	}
	if global.markSeen("cfg") {
		inv.effect = "git -c sets configuration that can run programs"
	}
	if global.effect != "" {
		inv.effect = global.effect
	}
	if inv.noIndex {
		// Without a repository the words are files, anywhere.
		inv.reads = append(inv.reads, inv.pos...)
	}
	// git reads the repository it runs in: the directory -C names, or the
	// current one. Commands that print file contents read all of it.
	repo := word{val: "."}
	for i, a := range args[:k] {
		if a.val == "-C" && i+1 < k {
			repo = args[i+1]
		}
	}
	inv.reads = append(inv.reads, repo)
	inv.repo = &repo
	for i, a := range args[:k] {
		switch {
		case a.val == "--git-dir" && i+1 < k:
			inv.gitDir = &args[i+1]
		case strings.HasPrefix(a.val, "--git-dir="):
			inv.gitDir = &word{val: strings.TrimPrefix(a.val, "--git-dir=")}
		}
	}
	return inv
}
