"""The fast subset for the edit-and-test loop: ``pytest -m "not slow"`` (README).

A test is "slow" when it is marked ``@pytest.mark.slow``, lives in a directory of whole
processes, terminals, namespaces or benchmarks (SLOW_DIRS), or is listed in SLOW_TESTS: the
test functions that took 0.5 s or more (all parametrizations together) in a full run on
2026-11-25 on the shared 2-core VM.  The full command, ``pytest``, still runs everything.
A test missing from the list only makes the fast subset a little slower; re-derive the list
with ``pytest --durations=0`` when it grows.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lanTag.identity import Verifier

SLOW_DIRS = ("tests/chaos/", "tests/e2e/", "tests/netns/", "tests/bench/")

SLOW_TESTS = frozenset(
    {
        "tests/bots/test_legal.py::test_heuristic_only_chooses_legal_actions_and_is_deterministic",
        "tests/bots/test_legal.py::test_simulate_is_reproducible_and_independent_of_worker_count",
        "tests/peer/test_selfplay.py::test_selfplay_plays_a_short_game_in_three_processes_and_verifies_every_log",
        "tests/sim/test_bot_strength.py::test_heuristic_beats_random",
        "tests/sim/test_bot_strength.py::test_prototag_heuristic_beats_random_head_to_head",
        "tests/sim/test_bot_strength.py::test_tagem_flag_modes",
        "tests/cli/test_cli.py::test_a_good_custom_map_is_played",
        "tests/cli/test_cli.py::test_bug_bad_bind_address_message_names_the_address",
        "tests/cli/test_cli.py::test_bug_binary_map_file_message_names_the_file",
        "tests/cli/test_cli.py::test_bug_closed_pipe_is_not_an_error",
        "tests/cli/test_cli.py::test_bug_corrupt_identity_message_names_the_file",
        "tests/cli/test_cli.py::test_bug_headless_host_announces_the_start_and_names_the_ranking",
        "tests/cli/test_cli.py::test_bug_log_path_that_cannot_be_created_names_the_log",
        "tests/cli/test_cli.py::test_bug_nickname_with_a_newline_is_refused",
        "tests/cli/test_cli.py::test_bug_overlong_nickname_is_refused_or_still_plays",
        "tests/cli/test_cli.py::test_bug_resume_from_a_directory_says_cannot_read",
        "tests/cli/test_cli.py::test_bug_unknown_bot_kind_is_a_user_error",
        "tests/cli/test_cli.py::test_id_creates_a_private_identity_and_shows_its_fingerprint",
        "tests/cli/test_cli.py::test_id_nickname_changes_the_nickname_not_the_key",
        "tests/cli/test_cli.py::test_join_resume_wait_help_and_bad_value",
        "tests/cli/test_cli.py::test_lantag_debug_changes_nothing_for_a_valid_run",
        "tests/cli/test_cli.py::test_malformed_map_names_file_line_and_column",
        "tests/cli/test_cli.py::test_plain_commands_never_print_escape_codes",
        "tests/cli/test_cli.py::test_rules_lists_the_five_games",
        "tests/cli/test_cli.py::test_rules_of_each_game_prints_rules_and_options",
        "tests/cli/test_cli.py::test_subcommand_help_mentions_its_options",
        "tests/cli/test_cli.py::test_the_identity_is_used_by_play",
        "tests/cli/test_cli.py::test_user_error_is_one_line_and_exit_2",
        "tests/cli/test_cli.py::test_verify_on_a_non_log_exits_2",
        "tests/cli/test_replay.py::test_replay_force_shows_a_forged_log_up_to_the_failure",
        "tests/cli/test_replay.py::test_replay_headless_every_game",
        "tests/cli/test_replay.py::test_replay_headless_prints_every_step",
        "tests/cli/test_replay.py::test_replay_headless_shows_roll_contributions_and_commitments",
        "tests/cli/test_replay.py::test_replay_of_a_truncated_log_shows_what_is_there",
        "tests/cli/test_replay.py::test_replay_refuses_a_forged_log_with_the_reason",
        "tests/cli/test_replay.py::test_viewer_closes_with_q_escape_and_ctrl_c",
        "tests/cli/test_replay.py::test_viewer_help_overlay_lists_the_keys",
        "tests/cli/test_replay.py::test_viewer_jump_prompt_takes_the_keys_until_enter_or_escape",
        "tests/cli/test_replay.py::test_viewer_plays_and_pauses",
        "tests/cli/test_replay.py::test_viewer_plays_to_the_end_and_pauses_there",
        "tests/cli/test_replay_detail.py::test_a_rolled_back_log_shows_the_history_that_stood",
        "tests/cli/test_replay_detail.py::test_every_roll_shows_each_seats_logged_link_and_rederives_the_value",
        "tests/cli/test_verify.py::test_a_flipped_byte_is_invalid",
        "tests/cli/test_verify.py::test_an_appended_entry_from_elsewhere_is_invalid",
        "tests/cli/test_verify.py::test_bug_verify_summary_fits_an_80x24_screen",
        "tests/cli/test_verify.py::test_every_game_leaves_a_log_that_verifies",
        "tests/cli/test_verify.py::test_forged_signature_exit_1_names_the_entry",
        "tests/cli/test_verify.py::test_forged_state_hash_exit_1_names_the_entry",
        "tests/cli/test_verify.py::test_header_only_log_is_valid_up_to_step_0",
        "tests/cli/test_verify.py::test_replicated_bot_seats_are_shown_as_bots",
        "tests/cli/test_verify.py::test_truncated_log_is_valid_but_incomplete",
        "tests/cli/test_verify.py::test_valid_log_summary_on_one_screen",
        "tests/fair/test_draws.py::test_multi_count_dice_are_independent",
        "tests/fair/test_draws.py::test_one_honest_seat_makes_a_pick_uniform",
        "tests/fair/test_draws.py::test_one_honest_seat_makes_the_die_uniform",
        "tests/fair/test_draws.py::test_shuffles_are_uniform_over_all_permutations",
        "tests/fair/test_draws.py::test_single_draws_are_uniform",
        "tests/fair/test_draws.py::test_the_test_detects_a_biased_die",
        "tests/net/test_discovery.py::test_a_query_answer_queued_before_an_update_goes_out_with_the_new_txt",
        "tests/net/test_discovery.py::test_an_update_between_registration_announcements_cancels_the_rest",
        "tests/net/test_discovery.py::test_an_update_right_after_start_replaces_the_registration_announcements",
        "tests/net/test_discovery.py::test_browse_lists_a_running_advert",
        "tests/net/test_discovery.py::test_racing_updates_compose_and_the_latest_is_announced_last",
        "tests/net/test_frame.py::test_mutated_valid_frames_never_raise",
        "tests/net/test_link.py::test_a_lobby_outsiders_link_is_closed_when_the_game_starts",
        "tests/net/test_link_index.py::test_indexed_layer_matches_a_full_scan",
        "tests/net/test_real_udp_games.py::test_clean_game_over_real_loopback_udp",
        "tests/net/test_real_udp_games.py::test_cli_peers_in_separate_processes_over_loopback",
        "tests/net/test_real_udp_games.py::test_game_over_real_udp_with_fault_injection",
        "tests/net/test_real_udp_games.py::test_peers_that_exit_at_game_over_still_deliver_their_final_acks",
        "tests/net/test_real_udp_hostile.py::test_bug_one_forged_datagram_blackholes_a_real_peers_link",
        "tests/net/test_real_udp_hostile.py::test_hostile_datagrams_at_a_live_peer_are_rejected_counted_and_the_game_completes",
        "tests/net/test_udp.py::test_two_real_endpoints_exchange_large_and_small_messages",
        "tests/net/test_udp_errors.py::test_a_game_plays_on_through_socket_errors",
        "tests/peer/test_full_stack.py::test_three_peers_and_a_spectator_play_to_the_end_under_faults",
        "tests/peer/test_properties.py::test_honest_peers_agree_on_every_step",
        "tests/peer/test_resume.py::test_peer_restarted_before_its_timeout_catches_up_and_plays_on",
        "tests/peer/test_resume.py::test_resume_gives_up_when_every_other_peer_has_left",
        "tests/rules/test_boardtag_fast.py::test_check_action_accepts_exactly_the_legal_actions",
        "tests/rules/test_boardtag_fast.py::test_fast_encoding_and_state_building_match_their_definitions",
        "tests/rules/test_conformance.py::test_random_playouts_terminate_and_keep_invariants",
        "tests/rules/test_digest_pins.py::test_engine_digest_matches_the_pin_of_its_rules_version",
        "tests/rules/test_fast_paths_prototag_assassination.py::test_assassination_fast_paths_match_the_slow_definitions",
        "tests/rules/test_fast_paths_prototag_assassination.py::test_prototag_fast_paths_match_the_slow_definitions",
        "tests/rules/test_stomptag_collide.py::test_property_resolution_is_sound_and_order_free",
        "tests/rules/test_stomptag_fastpath.py::test_fast_paths_match_the_slow_definitions_over_random_games",
        "tests/rules/test_stomptag_props.py::test_property_no_shared_cells_and_points_follow_only_the_rules",
        "tests/rules/test_stomptag_props.py::test_property_order_of_receipt_does_not_matter",
        "tests/rules/test_stomptag_props.py::test_property_seat_numbers_do_not_matter",
        "tests/rules/test_tagem_fast.py::test_fast_paths_match_their_definitions",
        "tests/session/test_dead_peer.py::test_one_sided_silence_never_drops_the_seat",
        "tests/session/test_dead_peer.py::test_one_sided_silence_never_strands_the_mute_peer",
        "tests/session/test_one_sided_silence.py::test_one_sided_silence_sweep",
        "tests/session/test_dead_peer.py::test_peer_killed_at_a_chance_step_is_dropped_within_5_s",
        "tests/session/test_dead_peer.py::test_peer_killed_at_its_own_turn_is_dropped_within_5_s",
        "tests/session/test_dead_peer.py::test_peer_killed_at_someone_elses_turn_is_dropped_within_5_s",
        "tests/session/test_dead_peer.py::test_thinking_player_is_not_dropped_before_the_turn_timeout",
        "tests/log/test_log_verify.py::test_flipped_byte_in_each_entry_is_rejected_naming_the_entry",
        "tests/session/test_message_fast_parse.py::test_every_bit_flip_same_on_both_paths",
        "tests/session/test_message_fast_parse.py::test_generated_bodies_same_on_both_paths",
        "tests/session/test_messages.py::test_any_flipped_body_or_signature_byte_fails_verification",
        "tests/session/test_messages.py::test_mutated_messages_parse_strictly_and_never_verify",
        "tests/session/test_messages.py::test_parse_of_random_bodies_only_returns_or_raises_protocol_errors",
        "tests/session/test_missing_cache.py::test_cached_missing_equals_fresh_across_random_games",
        "tests/session/test_missing_cache.py::test_cached_missing_equals_fresh_through_drops_rollbacks_and_equivocation",
        "tests/log/test_plain_replay.py::test_a_dropped_seat_is_left_to_the_full_replay",
        "tests/log/test_plain_replay.py::test_every_peer_log_of_a_game_takes_the_plain_lane_with_the_same_report",
        "tests/log/test_plain_replay.py::test_tampered_logs_get_the_same_report",
        "tests/log/test_verify_signature_pass.py::test_tampered_messages_give_the_same_report",
        "tests/test_architecture.py::test_imports_only_go_down_the_layers",
        "tests/test_architecture.py::test_no_module_imports_another_modules_private_names",
        "tests/test_pytest_timeout.py::test_a_hanging_test_fails_by_timeout",
        "tests/test_wire.py::test_round_trip_of_generated_values",
        "tests/test_wire.py::test_unpack_of_mutated_encodings_only_returns_or_raises_protocol_errors",
        "tests/ui/test_game_screen.py::test_a_typed_word_reaches_the_command_line_whole_and_moves_nothing",
        "tests/ui/test_game_screen.py::test_every_engine_draws_its_board_players_and_legend",
        "tests/ui/test_game_screen.py::test_game_over_screen_names_the_winner_and_the_log_file",
        "tests/ui/test_game_screen.py::test_screens_survive_any_terminal_size",
        "tests/ui/test_game_screen.py::test_tab_then_enter_plays_the_first_legal_action",
        "tests/ui/test_host_setup.py::test_keys_show_errors_and_escape_leaves_without_hosting",
        "tests/ui/test_host_setup.py::test_the_form_config_opens_a_real_host_that_joiners_see",
        "tests/ui/test_host_setup.py::test_the_form_fits_any_terminal_and_keeps_the_focus_in_view",
        "tests/ui/test_replay.py::test_replay_steps_through_every_position",
        "tests/session/test_colluders.py::test_two_colluders_end_in_one_history_with_no_honest_seat_blamed",
        "tests/session/test_colluders.py::test_a_victim_that_took_the_second_commit_splits_the_round_with_everyone",
        "tests/session/test_colluders.py::test_beyond_the_bound_the_table_stalls_and_never_splits",
        "tests/session/test_cut_survivors.py::test_two_survivors_cut_apart_while_the_third_dies_finish_the_game",
    }
)


def is_slow(nodeid: str) -> bool:
    """``nodeid`` as pytest prints it from the repository root (parameters allowed)."""
    function = nodeid.split("[", 1)[0]
    return function.startswith(SLOW_DIRS) or function in SLOW_TESTS


# Modules that speak real mDNS in this host's network namespace (advertise, browse, list, a
# join by name or through the browser).  The multicast group is one per machine: a browse in
# one test makes another test's advertiser answer, and the announcement counts of
# tests/net/test_discovery.py are exact.  The suite runs in parallel (pytest-xdist,
# ``--dist loadgroup`` in pyproject.toml): these share one worker, one test at a time.
# (tests/netns/ runs its mDNS in namespaces of its own.)
ONE_WORKER_MODULES = frozenset(
    {
        "tests/net/test_discovery.py",
        "tests/net/test_lobby_adverts.py",
        "tests/bench/test_bench_smoke.py",  # bench_discovery advertises and browses
        "tests/cli/test_doorstep.py",
        "tests/cli/test_exit_signals.py",
        "tests/cli/test_cli.py",
        "tests/e2e/test_night_tmux.py",
        "tests/e2e/test_rematch.py",
        "tests/e2e/test_tmux.py",
        # ... and the other real-terminal tests: their turn clocks are short (a 32-s idle
        # limit), and two of them side by side on two cores missed one in CI.
        "tests/e2e/test_first_run.py",
        "tests/e2e/test_idle_tmux.py",
        "tests/e2e/test_resume_tmux.py",
        "tests/e2e/test_tmux_screens.py",
    }
)


def on_one_worker(nodeid: str) -> bool:
    return nodeid.split("::", 1)[0] in ONE_WORKER_MODULES


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow(item.nodeid):
            item.add_marker(pytest.mark.slow)
        if on_one_worker(item.nodeid):
            item.add_marker(pytest.mark.xdist_group("mdns"))


@pytest.fixture(autouse=True)
def _each_signature_checked_once_per_test() -> Iterator[None]:
    """Within one test, an Ed25519 check of the same (key, signature, bytes) runs once.

    Simulated tables check every message at every receiver, and the log tests verify the
    same log in both lanes: nine checks in ten repeated one already made in the same test
    (about a tenth of the suite's CPU).  ``Verifier.verify`` is a pure function of those
    exact bytes, so its answer is the same; every new message, flipped bit or forged
    signature is still checked for real, and no answer is kept from one test to the next.
    Anything but three ``bytes`` (what the bad-input tests pass) goes straight through.
    """
    verify = Verifier.verify
    answers: dict[tuple[bytes, bytes, bytes], bool] = {}

    def once(self: Verifier, public_key: bytes, signature: bytes, data: bytes) -> bool:
        if not type(public_key) is type(signature) is type(data) is bytes:
            return verify(self, public_key, signature, data)
        key = (public_key, signature, data)
        answer = answers.get(key)
        if answer is None:
            answer = answers[key] = verify(self, public_key, signature, data)
        return answer

    Verifier.verify = once  # type: ignore[method-assign]
    try:
        yield
    finally:
        Verifier.verify = verify  # type: ignore[method-assign]
