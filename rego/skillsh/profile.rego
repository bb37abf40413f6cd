# METADATA
# title: skillsh jail profiles
# description: |
#   The jail profile a decision carries, from data.skillsh.profiles (and
#   the project layer's data.skillsh.project.profiles).
package skillsh.profile

profile := {}
