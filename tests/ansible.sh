#!/bin/bash
# build.ansible: the Ansible role (fleet/ansible, docs/fleet.md) parses
# (ansible-playbook --syntax-check, the example playbook and one with
# --tags rollback), and its template with the role's defaults renders a
# kcsmux.conf the built kcsmuxd -n accepts (the role's validate:); the
# shipped ansible.cfg turns on pipelining and finds the role.
# Skipped (77) without ansible-playbook (tests/deps.sh installs
# ansible-core). vm.pkg-admin runs the role in the guest.
#   tests/ansible.sh BUILD_DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$1
command -v ansible-playbook >/dev/null || { echo "ansible.sh: no ansible-playbook: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C.UTF-8 HOME=$tmp ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
	ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
pb=$src/fleet/ansible/site.yml
ansible-playbook --syntax-check -i localhost, "$pb" 2>&1 | grep -v 'Could not match supplied host pattern'
ansible-playbook --syntax-check -i localhost, "$pb" --tags rollback >/dev/null 2>&1
# the shipped ansible.cfg: read, pipelining on, the role found through it
ANSIBLE_CONFIG=$src/fleet/ansible/ansible.cfg ansible-config dump --only-changed >"$tmp/cfg" 2>&1
grep -q '^ANSIBLE_PIPELINING.* = True$' "$tmp/cfg" && grep -q "^DEFAULT_ROLES_PATH.*$src/fleet/ansible/roles" "$tmp/cfg" ||
	{ cat "$tmp/cfg"; echo "ansible.sh: fleet/ansible/ansible.cfg: no pipelining or roles_path" >&2; exit 1; }
# the template alone, with the role's defaults, validated as the role does
cat >"$tmp/render.yml" <<EOY
- hosts: localhost
  gather_facts: false
  vars_files: [$src/fleet/ansible/roles/kcsmux/defaults/main.yml]
  tasks:
    - ansible.builtin.template:
        src: $src/fleet/ansible/roles/kcsmux/templates/kcsmux.conf.j2
        dest: $tmp/kcsmux.conf
        validate: $build/fused/kcsmuxd -n -c %s
EOY
if ! ansible-playbook -c local -i localhost, "$tmp/render.yml" >"$tmp/out" 2>&1; then
	cat "$tmp/out"
	echo "ansible.sh: the role's template with its defaults fails kcsmuxd -n" >&2
	exit 1
fi
grep -q '^\[node ipmi2\]$' "$tmp/kcsmux.conf" && grep -q '^sdr_cache = yes$' "$tmp/kcsmux.conf" ||
	{ cat "$tmp/kcsmux.conf"; echo "ansible.sh: the rendered file lacks the defaults' nodes" >&2; exit 1; }
echo "ansible.sh: syntax ok; the defaults render a kcsmux.conf kcsmuxd -n accepts"
